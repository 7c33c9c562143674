import Foundation

/// A value shared by the client threads of a scenario, guarded by a lock.
///
/// `@unchecked Sendable` is sound because every access goes through `withLock`.
final class SharedBox<Value>: @unchecked Sendable {
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
