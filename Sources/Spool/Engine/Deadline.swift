import Foundation

/// Bounds how long the engine waits for an origin that has gone silent.
enum Deadline {
    /// The result of `operation`, or `SpoolError.timedOut` (and `operation` cancelled) if it takes longer than
    /// `seconds`.
    static func run<Result: Sendable>(
        within seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                return nil
            }
            let first = try await group.next()
            group.cancelAll()
            guard let result = first ?? nil else { throw SpoolError.timedOut }
            return result
        }
    }
}
