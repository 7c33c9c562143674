import Foundation

/// A response body that a transport pushes chunk by chunk (URLSession's delegate) and the engine pulls
/// (`stream`), pausing the transfer while the buffered bytes are above a mark (`BodyFlow`) and cancelling it
/// when the reader stops: its task is cancelled, or the stream is dropped.
///
/// The transfer's pause and resume are performed under the body's lock, in the order they were decided: done
/// after it, a resume decided after a pause could reach the transfer first and leave it paused for good. A
/// waiting reader is resumed after the lock is released, never under it: resuming a task takes that task's
/// status lock, which a cancellation holds while its handler takes the body's lock (a deadlock the test suite
/// met, with the delivery's `finish` on one thread and the reader's cancellation on another).
final class PushedBody: Sendable {
    private struct State {
        var flow: BodyFlow
        var chunks: [Data] = []
        /// Taken chunks at the front of `chunks`, removed in batches rather than one at a time.
        var taken = 0
        /// How the body ended, once the transport said so.
        var end: Result<Void, any Error>?
        /// The reader waiting for the next chunk.
        var waiter: CheckedContinuation<Data?, any Error>?
        /// Whether the reader stopped: the transfer was cancelled.
        var cancelled = false
    }

    private let state: LockedBox<State>
    /// Pauses or resumes the transfer.
    private let control: @Sendable (BodyFlow.Action) -> Void
    /// Cancels the transfer.
    private let cancelTransfer: @Sendable () -> Void

    /// A body whose transfer `control` pauses and resumes as `flow` says, and `cancel` cancels.
    init(
        flow: BodyFlow, control: @escaping @Sendable (BodyFlow.Action) -> Void,
        cancel: @escaping @Sendable () -> Void
    ) {
        state = LockedBox(State(flow: flow), rank: .pushedBody)
        self.control = control
        cancelTransfer = cancel
    }

    deinit {
        // Dropped by its reader before its end: nobody will read the rest.
        if state.withLock({ $0.end == nil && !$0.cancelled }) { cancelTransfer() }
    }

    /// The body as the engine reads it; it holds the body, so dropping it (and its iterator) cancels the transfer.
    var stream: AsyncThrowingStream<Data, any Error> {
        AsyncThrowingStream { try await self.next() }
    }

    /// Takes `data`, the transfer's next bytes.
    func receive(_ data: Data) {
        guard !data.isEmpty else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil, !state.cancelled else { return nil }
            if let waiter = state.waiter {
                // Handed over at once: it was never buffered.
                state.waiter = nil
                return waiter
            }
            state.chunks.append(data)
            if let action = state.flow.received(data.count) { control(action) }
            return nil
        }
        waiter?.resume(returning: data)
    }

    /// Ends the body after the chunks received so far: its end, or `failure`.
    func finish(throwing failure: (any Error)? = nil) {
        let waiter = state.withLock { state -> CheckedContinuation<Data?, any Error>? in
            guard state.end == nil else { return nil }
            state.end = failure.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let failure { waiter?.resume(throwing: failure) } else { waiter?.resume(returning: nil) }
    }

    /// The next chunk, `nil` after the last; throws the transfer's failure, or `CancellationError` when the
    /// calling task is cancelled (which cancels the transfer).
    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Data?, any Error>) in
                let outcome = state.withLock { state -> Result<Data?, any Error>? in
                    if state.taken < state.chunks.count {
                        let chunk = state.chunks[state.taken]
                        state.taken += 1
                        if state.taken == state.chunks.count || state.taken >= 64 {
                            state.chunks.removeFirst(state.taken)
                            state.taken = 0
                        }
                        if let action = state.flow.taken(chunk.count) { control(action) }
                        return .success(chunk)
                    }
                    if state.cancelled { return .failure(CancellationError()) }
                    switch state.end {
                    case .success?: return .success(nil)
                    case .failure(let failure)?: return .failure(failure)
                    case nil:
                        state.waiter = waiter
                        return nil
                    }
                }
                if let outcome { waiter.resume(with: outcome) }
            }
        } onCancel: {
            let (cancels, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Data?, any Error>?) in
                guard state.end == nil, !state.cancelled else { return (false, nil) }
                state.cancelled = true
                defer { state.waiter = nil }
                return (true, state.waiter)
            }
            waiter?.resume(throwing: CancellationError())
            if cancels { cancelTransfer() }
        }
    }
}
