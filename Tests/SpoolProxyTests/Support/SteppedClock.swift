import Dispatch
import Foundation
import Spool

/// A clock that runs with the system's and that a test moves forward at once (`advance(by:)`), where it would
/// otherwise sleep for the time to pass: a live playlist's copy grows old without the test waiting. Waits and
/// timers set before a step end at the moments they named on the system's clock.
final class SteppedClock: SpoolClock {
    private let system = SystemClock()
    private let offset = LockedBox<TimeInterval>(0, rank: .clock)

    var uptime: TimeInterval { system.uptime + offset.withLock { $0 } }

    var date: Date { system.date.addingTimeInterval(offset.withLock { $0 }) }

    /// Moves the time forward by `seconds`.
    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }

    func sleep(until deadline: TimeInterval) async throws {
        try await system.sleep(until: deadline - offset.withLock { $0 })
    }

    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        system.schedule(at: deadline - offset.withLock { $0 }, on: queue, work)
    }
}
