import Foundation

/// Runs `body` and returns its result, or `nil` after `seconds`: not a measurement, a bound on how long a
/// missing event (a wake-up, an answer) may hang a test before it fails.
public func withinHangBound<T: Sendable>(
    seconds: UInt64 = 60, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            return nil
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}
