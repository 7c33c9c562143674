#if os(Linux)
import Dispatch

/// Marks delegate queues so a request can tell whether it is being called on its loader's delegate queue.
///
/// `DispatchQueue.getSpecific(key:)` sees the value of the queue that is currently running (or of its
/// target queues), which is the only reliable "am I on that queue?" test Dispatch offers.
final class DelegateQueueMarker: Sendable {
    /// The key every marked queue stores its marker under.
    static let key = DispatchSpecificKey<DelegateQueueMarker>()

    /// The marker of `queue`, creating and attaching one on first use; loaders sharing a queue share it.
    static func marker(for queue: DispatchQueue) -> DelegateQueueMarker {
        creationLock.withLock { _ in
            if let existing = queue.getSpecific(key: key) {
                return existing
            }
            let marker = DelegateQueueMarker()
            queue.setSpecific(key: key, value: marker)
            return marker
        }
    }

    /// Whether the calling code runs on the queue this marker is attached to.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: Self.key) === self
    }

    /// Serialises "look up, else attach" so two loaders never attach two markers to one queue.
    private static let creationLock = Locked(())
}
#endif
