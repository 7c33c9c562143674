#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVQueuePlayer`: a player with a queue of items.
///
/// Checked against the iOS 18.0 SDK's `AVQueuePlayer.h` (Xcode 16) and the macOS 26.0 SDK's (Xcode 26): the
/// class inherits `AVPlayer`'s main-actor isolation and every queue method (`init(items:)`, `items()`,
/// `advanceToNextItem()`, `canInsert`, `insert`, `remove(_:)`, `removeAllItems()`) is `NS_SWIFT_NONISOLATED`.
/// Advancing or removing items never cancels their loading requests, as on Apple platforms.
@MainActor
open class AVQueuePlayer: AVPlayer {
    /// Posted on `NotificationCenter.default`, with the player as `object`, after the items changed.
    ///
    /// Not part of AVFoundation (KVO on `items` is, and does not exist on Linux): the stand-in's own tests
    /// use it; an adapter must not.
    nonisolated public static let itemsDidChangeNotification = Notification.Name(
        "AVFoundationStandIn.AVQueuePlayer.itemsDidChange")

    /// Creates a queue player without items.
    nonisolated public override init() {
        super.init(queueItems: [])
    }

    /// Creates a queue player that plays `items` in order (`initWithItems:`).
    nonisolated public init(items: [AVPlayerItem]) {
        super.init(queueItems: items)
    }

    /// The items in the queue, the current one first. `NS_SWIFT_NONISOLATED`.
    nonisolated public func items() -> [AVPlayerItem] {
        queue.withLock { $0 }
    }

    /// Ends the current item and makes the next one current; nothing is cancelled. `NS_SWIFT_NONISOLATED`.
    nonisolated public func advanceToNextItem() {
        let changed = queue.withLock { items -> Bool in
            guard !items.isEmpty else { return false }
            items.removeFirst()
            return true
        }
        if changed { itemsDidChange() }
    }

    /// Whether `item` may be inserted after `afterItem` (an item may be in the queue only once).
    nonisolated public func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        queue.withLock { items in
            !items.contains { $0 === item } && (afterItem.map { after in items.contains { $0 === after } } ?? true)
        }
    }

    /// Inserts `item` after `afterItem`, or at the end when `afterItem` is `nil`.
    nonisolated public func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
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

    /// Removes `item` from the queue; its loading requests stay open. `NS_SWIFT_NONISOLATED`.
    nonisolated public func remove(_ item: AVPlayerItem) {
        let removed = queue.withLock { items -> Bool in
            guard let index = items.firstIndex(where: { $0 === item }) else { return false }
            items.remove(at: index)
            return true
        }
        if removed { itemsDidChange() }
    }

    /// Removes every item; their loading requests stay open. `NS_SWIFT_NONISOLATED`.
    nonisolated public func removeAllItems() {
        let hadItems = queue.withLock { items -> Bool in
            defer { items.removeAll() }
            return !items.isEmpty
        }
        if hadItems { itemsDidChange() }
    }

    nonisolated override func itemsDidChange() {
        NotificationCenter.default.post(name: Self.itemsDidChangeNotification, object: self)
    }
}
#endif
