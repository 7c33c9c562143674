import Foundation

/// Stand-in for AVFoundation's `AVPlayer`: holds the current item. It plays nothing by itself; the
/// simulator issues the loading requests a real player would.
open class AVPlayer: NSObject {
    /// The queue of items; an `AVPlayer` holds at most one, an `AVQueuePlayer` many.
    let queue: Locked<[AVPlayerItem]>

    /// Creates a player without an item.
    public override init() {
        queue = Locked([])
        super.init()
    }

    /// Creates a player for `item`.
    public init(playerItem item: AVPlayerItem?) {
        queue = Locked(item.map { [$0] } ?? [])
        super.init()
    }

    /// Creates a player for the items of a queue player.
    init(queueItems: [AVPlayerItem]) {
        queue = Locked(queueItems)
        super.init()
    }

    /// Creates a player for a plain `AVURLAsset` of `URL`.
    public convenience init(url URL: URL) {
        self.init(playerItem: AVPlayerItem(url: URL))
    }

    /// The item being played.
    public var currentItem: AVPlayerItem? { queue.withLock { $0.first } }

    /// Replaces the current item. Like AVFoundation, this does **not** cancel the old item's loading
    /// requests: the app must call `cancelLoading()` on its asset.
    open func replaceCurrentItem(with item: AVPlayerItem?) {
        queue.withLock { items in
            if !items.isEmpty { items.removeFirst() }
            if let item { items.insert(item, at: 0) }
        }
        itemsDidChange()
    }

    /// Called after every change to the items; `AVQueuePlayer` announces it.
    func itemsDidChange() {}
}
