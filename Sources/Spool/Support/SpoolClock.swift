import Dispatch
import Foundation

/// Where Spool reads the time and waits for a moment to come: one clock for the engine, the proxy's timers and
/// the preloader, so that a test can drive it instead of sleeping.
///
/// It has two time bases: `uptime` for intervals, timeouts and rates (it never jumps), and `date` for what is
/// written down (an entry's last access, its age against a limit), which the user may set.
package protocol SpoolClock: Sendable {
    /// Seconds since an arbitrary moment, never going back.
    var uptime: TimeInterval { get }
    /// The wall-clock time: for last-access stamps and age limits.
    var date: Date { get }
    /// Returns once `uptime` has reached `deadline`; throws `CancellationError` if the task is cancelled first.
    func sleep(until deadline: TimeInterval) async throws
    /// Runs `work` on `queue` once `uptime` has reached `deadline`: a timer that needs no task.
    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
}

/// The system's clock: its uptime, the date, `Task.sleep` to wait and Dispatch's timers.
package struct SystemClock: SpoolClock {
    package init() {}

    package var uptime: TimeInterval { ProcessInfo.processInfo.systemUptime }

    package var date: Date { Date() }

    package func sleep(until deadline: TimeInterval) async throws {
        // A deadline that never comes (`.infinity`) waits for cancellation, a year at a time.
        let wait = min(deadline - uptime, Self.longestWait)
        guard wait > 0 else { return try Task.checkCancellation() }
        try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
    }

    package func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let wait = min(max(0, deadline - uptime), Self.longestWait)
        queue.asyncAfter(deadline: .now() + wait, execute: work)
    }

    private static let longestWait: TimeInterval = 365 * 86_400
}
