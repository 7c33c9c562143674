import Foundation

@testable import Spool

/// A clock a test moves by hand: time stands still until `advance(by:)`, which wakes every sleeper whose
/// moment has come. A test waits for a task to be asleep with `sleepers(atLeast:)`, an event, not a delay.
final class ManualClock: SpoolClock {
    private struct State {
        var now: TimeInterval = 1000
        var sleepers: [Int: (deadline: TimeInterval, continuation: CheckedContinuation<Void, any Error>)] = [:]
        var nextSleeper = 0
        /// Tests waiting for a number of sleepers, with that number.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = LockedBox(State())

    var uptime: TimeInterval { state.withLock { $0.now } }

    /// How many tasks sleep on this clock now.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Moves the time forward and wakes the sleepers whose deadline it reached.
    func advance(by seconds: TimeInterval) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now += seconds
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for sleeper in due { sleeper.resume() }
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

    /// Returns once at least `count` tasks sleep on this clock.
    func sleepers(atLeast count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}
