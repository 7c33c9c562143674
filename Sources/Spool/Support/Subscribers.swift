import Foundation

/// The consumers of a type's events (a preloader's, a download queue's): each `stream()` adds one, `yield`
/// tells every one, `finish` ends them all. Buffers the newest `buffering` events of a consumer that lags.
package final class Subscribers<Event: Sendable>: Sendable {
    private struct State {
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
        var next = 0
    }

    private let state = LockedBox(State())
    private let buffering: Int

    package init(buffering: Int = 1024) {
        self.buffering = buffering
    }

    /// Every event from now on, until `finish()` (or the consumer stops iterating).
    package func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingNewest(buffering))
        let id = state.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every consumer `events`, in order.
    package func yield(_ events: [Event]) {
        guard !events.isEmpty else { return }
        let continuations = state.withLock { Array($0.continuations.values) }
        for event in events {
            for continuation in continuations { continuation.yield(event) }
        }
    }

    /// Ends every stream.
    package func finish() {
        let continuations = state.withLock { state in
            defer { state.continuations = [:] }
            return Array(state.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
