#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVPlayer`: holds the current item. It plays nothing by itself; the
/// simulator issues the loading requests a real player would.
///
/// Checked against the iOS 18.0 SDK's `AVPlayer.h` (Xcode 16), where the class became `NS_SWIFT_UI_ACTOR`,
/// and the macOS 26.0 SDK's (Xcode 26), which keeps it: main-actor isolated except the members marked
/// `NS_SWIFT_NONISOLATED` there (the initializers, `currentItem`, `replaceCurrentItem(with:)`, …).
/// `automaticallyWaitsToMinimizeStalling` is nonisolated only for deployment targets of iOS 16 and later, so
/// for Spool's iOS 15 it is isolated.
@MainActor
open class AVPlayer: NSObject {
    /// The queue of items; an `AVPlayer` holds at most one, an `AVQueuePlayer` many. Guarded by its own lock
    /// because `AVQueuePlayer`'s `NS_SWIFT_NONISOLATED` methods reach it from any thread.
    let queue: Locked<[AVPlayerItem]>
    private var waitsToMinimizeStalling = true

    /// Creates a player without an item. `NS_SWIFT_NONISOLATED`.
    nonisolated public override init() {
        queue = Locked([])
        super.init()
    }

    /// Creates a player for `item` (`initWithPlayerItem:`, nullable). `NS_SWIFT_NONISOLATED`.
    nonisolated public init(playerItem item: AVPlayerItem?) {
        queue = Locked(item.map { [$0] } ?? [])
        super.init()
    }

    /// Creates a player for the items of a queue player.
    nonisolated init(queueItems: [AVPlayerItem]) {
        queue = Locked(queueItems)
        super.init()
    }

    /// Creates a player for a plain `AVURLAsset` of `URL` (`initWithURL:`). `NS_SWIFT_NONISOLATED`.
    nonisolated public convenience init(url URL: URL) {
        self.init(playerItem: AVPlayerItem(url: URL))
    }

    /// The item being played (nullable). `NS_SWIFT_NONISOLATED`.
    nonisolated public var currentItem: AVPlayerItem? { queue.withLock { $0.first } }

    /// Replaces the current item. Like AVFoundation, this does **not** cancel the old item's loading
    /// requests. `NS_SWIFT_NONISOLATED`.
    nonisolated open func replaceCurrentItem(with item: AVPlayerItem?) {
        queue.withLock { items in
            if !items.isEmpty { items.removeFirst() }
            if let item { items.insert(item, at: 0) }
        }
        itemsDidChange()
    }

    /// Whether playback waits until enough is buffered to play through (default `true`, iOS 10). The SDK's
    /// header advises `false` for players fed by a resource loader. Stored, not interpreted.
    open var automaticallyWaitsToMinimizeStalling: Bool {
        get { waitsToMinimizeStalling }
        set { waitsToMinimizeStalling = newValue }
    }

    /// Called after every change to the items; `AVQueuePlayer` announces it.
    nonisolated func itemsDidChange() {}
}
#endif
