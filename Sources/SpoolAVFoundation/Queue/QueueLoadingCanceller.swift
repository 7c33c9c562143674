#if !os(watchOS)
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation

/// Cancels the loading of items that leave an `AVQueuePlayer`, which AVFoundation does not do: an item that
/// played to its end or was removed keeps its resource requests (and their traffic) open otherwise.
///
/// ```swift
/// let canceller = QueueLoadingCanceller(player: queuePlayer)
/// canceller.remove(item)            // or edit the player, then call canceller.queueDidChange()
/// ```
///
/// Items that play to their end are handled on their own (`AVPlayerItem.didPlayToEndTimeNotification`).
/// Main-actor isolated, like `AVPlayer` (iOS 18 SDK) and `AVPlayerItem` (Xcode 26 SDK), whose `asset` it reads.
@MainActor
public final class QueueLoadingCanceller {
    private weak var player: AVQueuePlayer?
    private var known: [AVPlayerItem]
    // Written once in init; read in deinit, which may run off the main actor.
    private nonisolated(unsafe) var observer: (any NSObjectProtocol)?

    /// Starts watching `player`'s queue.
    public init(player: AVQueuePlayer) {
        self.player = player
        known = player.items()
        // AVFoundation may post the notification on any thread. `MainActor.assumeIsolated` from a block on the
        // main queue would run it at once, but only from iOS 17 and macOS 14 on (its runtime support is that
        // new); a hop to the main actor does the same job on every release from iOS 15, a turn later.
        observer = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.didPlayToEndTimeNotification, object: nil, queue: nil
        ) { [weak self] notification in
            guard let item = notification.object as? AVPlayerItem else { return }
            let ended = EndedItem(item: item)
            Task { @MainActor in self?.itemEnded(ended.item) }
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    /// Compares the queue with what it held before and cancels loading of every item no longer in it. Call
    /// it after editing the player directly.
    public func queueDidChange() {
        guard let player else { return }
        let current = player.items()
        let departed = known.filter { item in !current.contains { $0 === item } }
        known = current
        for item in departed { item.asset.cancelLoading() }
    }

    /// Advances the player and cancels loading of the item that left.
    public func advanceToNextItem() {
        player?.advanceToNextItem()
        queueDidChange()
    }

    /// Removes `item` from the player and cancels its loading.
    public func remove(_ item: AVPlayerItem) {
        player?.remove(item)
        queueDidChange()
    }

    /// Empties the player and cancels loading of every item it held.
    public func removeAllItems() {
        player?.removeAllItems()
        queueDidChange()
    }

    /// An item that announced its end, on its way to the main actor. `@unchecked Sendable` because
    /// `AVPlayerItem` is not Sendable before the iOS 18 SDK: it is posted from any thread, and once handed over
    /// only the main actor touches it.
    private struct EndedItem: @unchecked Sendable {
        let item: AVPlayerItem
    }

    private func itemEnded(_ item: AVPlayerItem) {
        guard let index = known.firstIndex(where: { $0 === item }) else { return }
        known.remove(at: index)
        item.asset.cancelLoading()
    }
}
#endif
