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
public final class QueueLoadingCanceller: @unchecked Sendable {
    private let lock = NSLock()
    private weak var player: AVQueuePlayer?
    // Guarded by `lock`.
    private var known: [AVPlayerItem]
    private var observer: (any NSObjectProtocol)?

    /// Starts watching `player`'s queue.
    public init(player: AVQueuePlayer) {
        self.player = player
        known = player.items()
        observer = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.didPlayToEndTimeNotification, object: nil, queue: nil
        ) { [weak self] notification in
            guard let item = notification.object as? AVPlayerItem else { return }
            self?.itemEnded(item)
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
        // NSLock.withLock needs iOS 16; the package supports iOS 15.
        lock.lock()
        let departed = known.filter { item in !current.contains { $0 === item } }
        known = current
        lock.unlock()
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

    private func itemEnded(_ item: AVPlayerItem) {
        lock.lock()
        let index = known.firstIndex { $0 === item }
        if let index { known.remove(at: index) }
        lock.unlock()
        let wasQueued = index != nil
        if wasQueued { item.asset.cancelLoading() }
    }
}
