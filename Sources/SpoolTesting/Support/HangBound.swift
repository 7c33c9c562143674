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

/// Whether `done` came to hold, looked at first and then after each of `events`, within the hang bound:
/// `false` when the events ended or the bound passed first. For code that reports its changes as events
/// (a download queue, a preloader), so a test waits for them instead of polling.
public func holdsAfterEvents<Events: AsyncSequence & Sendable>(
    _ events: Events, seconds: UInt64 = 60, _ done: @escaping @Sendable () -> Bool
) async throws -> Bool {
    let reached = try await withinHangBound(seconds: seconds) { () async throws -> Bool in
        var iterator = events.makeAsyncIterator()
        while !done() {
            guard try await iterator.next() != nil else { return false }
        }
        return true
    }
    return reached ?? false
}
