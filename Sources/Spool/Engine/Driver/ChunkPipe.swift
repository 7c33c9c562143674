import Foundation

/// Hands the chunks an origin response delivers from the task that receives them to the task that stores
/// them, so that the next chunks arrive while one batch is written. The writer takes everything received
/// since its last take as one batch: on a fast link a write job (a hop to the write queue and back, the
/// bookkeeping) then covers several chunks instead of one. The chunks stay as they came: joining them cost a
/// cold read 5 % of its CPU time in copies.
///
/// At most `limit` bytes wait: the receiving side is held up beyond that (so is the origin, through the
/// transport's backpressure), and memory does not grow with a slow disk. With a limit of 0 nothing overlaps:
/// each chunk is pushed only once the one before is stored (`stored()`).
final class ChunkPipe: Sendable {
    private let limit: Int
    private let state: LockedBox<State>

    private struct State {
        /// Kept as received (appending to one buffer would also grow it by doubling, to up to twice the limit).
        var pending: [Data] = []
        var pendingBytes = 0
        /// Whether the writer holds a batch it has not reported stored.
        var writing = false
        var start: Int64
        var finished = false
        /// The side waiting: the writer for bytes, or the receiver for room.
        var takeWaiter: CheckedContinuation<Void, Never>?
        var pushWaiter: CheckedContinuation<Void, Never>?
    }

    /// A pipe for a body whose first byte is at resource offset `start`.
    init(start: Int64, limit: Int) {
        self.limit = limit
        state = LockedBox(State(start: start))
    }

    /// Adds `chunk`; returns once fewer than `limit` bytes wait, or the task is cancelled.
    func push(_ chunk: Data) async {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.pending.append(chunk)
            state.pendingBytes += chunk.count
            defer { state.takeWaiter = nil }
            return state.takeWaiter
        }
        waiter?.resume()
        await wait(in: \.pushWaiter) { [limit] state in
            state.finished || state.pendingBytes < limit || (state.pendingBytes == 0 && !state.writing)
        }
    }

    /// Ends the body: the writer takes what is left, then `nil`.
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            defer { (state.takeWaiter, state.pushWaiter) = (nil, nil) }
            return [state.takeWaiter, state.pushWaiter].compactMap { $0 }
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Everything received since the last take, in order, with the resource offset of its first byte; waits
    /// while nothing is; `nil` once the body has ended and all of it was taken, or the task is cancelled.
    func take() async -> ([Data], Int64)? {
        await wait(in: \.takeWaiter) { !$0.pending.isEmpty || $0.finished }
        let (taken, start, waiter) = state.withLock { state -> ([Data], Int64, CheckedContinuation<Void, Never>?) in
            let taken = (state.pending, state.start)
            state.start += Int64(state.pendingBytes)
            (state.pending, state.pendingBytes) = ([], 0)
            state.writing = !taken.0.isEmpty
            // With a limit of 0 the receiver waits for `stored()`, not for the take.
            guard limit > 0 else { return (taken.0, taken.1, nil) }
            defer { state.pushWaiter = nil }
            return (taken.0, taken.1, state.pushWaiter)
        }
        waiter?.resume()
        return taken.isEmpty ? nil : (taken, start)
    }

    /// Tells the pipe the batch last taken is stored: a receiver held back by a limit of 0 goes on.
    func stored() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.writing = false
            guard state.pendingBytes == 0 else { return nil }
            defer { state.pushWaiter = nil }
            return state.pushWaiter
        }
        waiter?.resume()
    }

    /// Which sides wait now: the writer for bytes, the receiver for room (for tests, which wait for a side to
    /// wait rather than for a while).
    var waiting: (taker: Bool, pusher: Bool) {
        state.withLock { ($0.takeWaiter != nil, $0.pushWaiter != nil) }
    }

    /// Returns once `ready` holds or the task is cancelled; meanwhile the caller's continuation waits in
    /// `slot`, for the other side to resume it outside the lock.
    private func wait(
        in slot: WritableKeyPath<State, CheckedContinuation<Void, Never>?> & Sendable, until ready: (State) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if ready(state) || Task.isCancelled { return true }
                    state[keyPath: slot] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state[keyPath: slot] = nil }
                return state[keyPath: slot]
            }
            waiter?.resume()
        }
    }
}
