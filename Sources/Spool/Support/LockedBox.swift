import Foundation

/// A value guarded by a lock: the small lock box the engine uses instead of actors where state changes
/// must be synchronous (delegate callbacks, `deinit`), and `Mutex` is not available on iOS 15.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
