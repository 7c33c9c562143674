import Foundation

/// Stand-in for AVFoundation's `AVQueuePlayer`: a player with a queue of items.
///
/// Advancing or removing items never cancels their loading requests, as on Apple platforms; an adapter
/// that wants that observes the items and calls `AVAsset.cancelLoading()` itself.
open class AVQueuePlayer: AVPlayer {
    /// Posted on `NotificationCenter.default`, with the player as `object`, after the items changed.
    ///
    /// Linux only: KVO does not exist there. On Apple platforms the adapter observes `items` with KVO
    /// instead, and must handle that difference itself.
    public static let itemsDidChangeNotification = Notification.Name("AVFoundationStandIn.AVQueuePlayer.itemsDidChange")

    /// Creates a queue player without items.
    public override init() {
        super.init(queueItems: [])
    }

    /// Creates a queue player that plays `items` in order.
    public init(items: [AVPlayerItem]) {
        super.init(queueItems: items)
    }

    /// The items in the queue, the current one first.
    public func items() -> [AVPlayerItem] {
        queue.withLock { $0 }
    }

    /// Ends the current item and makes the next one current; nothing is cancelled.
    public func advanceToNextItem() {
        let changed = queue.withLock { items -> Bool in
            guard !items.isEmpty else { return false }
            items.removeFirst()
            return true
        }
        if changed { itemsDidChange() }
    }

    /// Whether `item` may be inserted after `afterItem` (an item may be in the queue only once).
    public func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        queue.withLock { items in
            !items.contains { $0 === item } && (afterItem.map { after in items.contains { $0 === after } } ?? true)
        }
    }

    /// Inserts `item` after `afterItem`, or at the end when `afterItem` is `nil`.
    public func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else { return }
        queue.withLock { items in
            if let afterItem, let index = items.firstIndex(where: { $0 === afterItem }) {
                items.insert(item, at: index + 1)
            } else {
                items.append(item)
            }
        }
        itemsDidChange()
    }

    /// Removes `item` from the queue; its loading requests stay open.
    public func remove(_ item: AVPlayerItem) {
        let removed = queue.withLock { items -> Bool in
            guard let index = items.firstIndex(where: { $0 === item }) else { return false }
            items.remove(at: index)
            return true
        }
        if removed { itemsDidChange() }
    }

    /// Removes every item; their loading requests stay open.
    public func removeAllItems() {
        let hadItems = queue.withLock { items -> Bool in
            defer { items.removeAll() }
            return !items.isEmpty
        }
        if hadItems { itemsDidChange() }
    }

    override func itemsDidChange() {
        NotificationCenter.default.post(name: Self.itemsDidChangeNotification, object: self)
    }
}
