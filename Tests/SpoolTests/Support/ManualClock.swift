import Dispatch
import Foundation

@testable import Spool

/// A clock a test moves by hand: time stands still until `advance(by:)`, which wakes every sleeper whose
/// moment has come. A test waits for a task to be asleep with `sleepers(atLeast:)`, an event, not a delay.
final class ManualClock: SpoolClock {
    private struct State {
        var now: TimeInterval = 1000
        var sleepers: [Int: (deadline: TimeInterval, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeper = 0
        /// Timers not yet due, with the queue they run on.
        var timers: [(deadline: TimeInterval, queue: DispatchQueue, work: @Sendable () -> Void)] = []
        /// Tests waiting for a number of timers, with that number.
        var timerWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Tests waiting for a number of sleepers, with that number.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedBox(State(), rank: .clock)

    var uptime: TimeInterval { state.withLock { $0.now } }

    /// The date moves with the uptime, from a fixed start.
    var date: Date { Date(timeIntervalSince1970: 1_800_000_000 + uptime) }

    /// How many timers wait on this clock now.
    var timerCount: Int { state.withLock { $0.timers.count } }

    func schedule(at deadline: TimeInterval, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let (due, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
            if deadline <= state.now { return (true, []) }
            state.timers.append((deadline, queue, work))
            let count = state.timers.count
            let ready = state.timerWatchers.filter { $0.count <= count }.map(\.continuation)
            state.timerWatchers.removeAll { $0.count <= count }
            return (false, ready)
        }
        if due { queue.async(execute: work) }
        for watcher in watchers { watcher.resume() }
    }

    /// How many tasks sleep on this clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time forward and wakes the sleepers whose deadline it reached.
    func advance(by seconds: TimeInterval) {
        let (due, timers) = state.withLock { state in
            state.now += seconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            let now = state.now
            let timers = state.timers.filter { $0.deadline <= now }
            state.timers.removeAll { $0.deadline <= now }
            return (due.values.map(\.continuation), timers)
        }
        for sleeper in due { sleeper.resume() }
        for timer in timers { timer.queue.async(execute: timer.work) }
    }

    func sleep(until deadline: TimeInterval) async throws {
        let id = state.withLock { state -> Int in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers[id] = (deadline, continuation)
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
                    state.watchers.removeAll { $0.count <= count }
                    return (false, ready)
                }
                if now { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    /// Returns once at least `count` timers wait on this clock.
    func timers(atLeast count: Int) async {
        await wait(until: count, of: \.timers.count, watchers: \.timerWatchers)
    }

    /// Returns once at least `count` tasks sleep on this clock.
    func sleepers(atLeast count: Int) async {
        await wait(until: count, of: \.sleepers.count, watchers: \.watchers)
    }

    /// Returns once `measure` reaches `count`; meanwhile waits among `watchers`, which the change resumes.
    private func wait(
        until count: Int, of measure: KeyPath<State, Int> & Sendable,
        watchers: WritableKeyPath<State, [(count: Int, continuation: CheckedContinuation<Void, Never>)]> & Sendable
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state[keyPath: measure] >= count { return true }
                state[keyPath: watchers].append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
