import Foundation

/// Where Spool reads the time for intervals, timeouts and rates, and waits for a moment to come: one clock, so
/// that a test can drive it instead of sleeping.
package protocol SpoolClock: Sendable {
    /// Seconds since an arbitrary moment, never going back.
    var uptime: TimeInterval { get }
    /// Returns once `uptime` has reached `deadline`; throws `CancellationError` if the task is cancelled first.
    func sleep(until deadline: TimeInterval) async throws
}

/// The system's clock: its uptime, and `Task.sleep` to wait.
package struct SystemClock: SpoolClock {
    package init() {}

    package var uptime: TimeInterval { ProcessInfo.processInfo.systemUptime }

    package func sleep(until deadline: TimeInterval) async throws {
        // A deadline that never comes (`.infinity`) waits for cancellation, a year at a time.
        let wait = min(deadline - uptime, Self.longestWait)
        guard wait > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
    }

    private static let longestWait: TimeInterval = 365 * 86_400
}
