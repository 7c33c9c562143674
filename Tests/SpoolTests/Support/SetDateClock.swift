import Dispatch
import Foundation

@testable import Spool

/// A clock whose date the test sets, as a user sets a device's clock, while intervals and waits run on the
/// system's uptime: for last-access stamps and age limits.
final class SetDateClock: SpoolClock {
    private let system = SystemClock()
    private let current: LockedBox<Date>

    init(_ start: Date) {
        current = LockedBox(start, rank: .clock)
    }

    var date: Date { current.withLock { $0 } }

    var uptime: TimeInterval { system.uptime }

    /// Sets the date.
    func set(_ date: Date) {
        current.withLock { $0 = date }
    }

    /// Moves the date forward.
    func advance(_ seconds: TimeInterval) {
        current.withLock { $0 += seconds }
    }

    func sleep(until deadline: TimeInterval) async throws {
        try await system.sleep(until: deadline)
    }

    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        system.schedule(at: deadline, on: queue, work)
    }
}
