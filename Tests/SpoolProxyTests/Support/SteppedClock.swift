import Dispatch
import Foundation
import Spool

/// A clock that runs with the system's and that a test moves forward at once (`advance(by:)`), where it would
/// otherwise sleep for the time to pass: a live playlist's copy grows old, an idle connection's two minutes
/// pass, without the test waiting. Waits set before a step end at the moments they named on the system's
/// clock; timers set before a step run at the step if it reaches their moment.
final class SteppedClock: SpoolClock {
    /// A timer not yet run: it runs once, at the step that reaches it or at its moment on the system's clock.
    private final class Timer: Sendable {
        let deadline: TimeInterval
        let queue: DispatchQueue
        let work: @Sendable () -> Void
        private let ran = LockedBox(false, rank: .clock)

        init(deadline: TimeInterval, queue: DispatchQueue, work: @escaping @Sendable () -> Void) {
            (self.deadline, self.queue, self.work) = (deadline, queue, work)
        }

        /// Runs the work on its queue unless it already ran.
        func run() {
            let first = ran.withLock { ran in
                defer { ran = true }
                return !ran
            }
            if first { queue.async(execute: work) }
        }
    }

    private struct State {
        var offset: TimeInterval = 0
        var timers: [ObjectIdentifier: Timer] = [:]
    }

    private let system = SystemClock()
    private let state = LockedBox(State(), rank: .clock)

    var uptime: TimeInterval { system.uptime + state.withLock { $0.offset } }

    var date: Date { system.date.addingTimeInterval(state.withLock { $0.offset }) }

    /// Moves the time forward by `seconds`, running the timers it reaches.
    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [Timer] in
            state.offset += seconds
            let now = system.uptime + state.offset
            let due = state.timers.values.filter { $0.deadline <= now }
            for timer in due { state.timers[ObjectIdentifier(timer)] = nil }
            return due
        }
        for timer in due { timer.run() }
    }

    func sleep(until deadline: TimeInterval) async throws {
        try await system.sleep(until: deadline - state.withLock { $0.offset })
    }

    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let timer = Timer(deadline: deadline, queue: queue, work: work)
        let offset = state.withLock { state in
            state.timers[ObjectIdentifier(timer)] = timer
            return state.offset
        }
        system.schedule(at: deadline - offset, on: queue) { [state] in
            state.withLock { _ = $0.timers.removeValue(forKey: ObjectIdentifier(timer)) }
            timer.run()
        }
    }
}
