import Foundation

/// A value guarded by an `NSLock`, so server threads and test code can share it.
///
/// `@unchecked Sendable` is sound because every access goes through `withLock`.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
