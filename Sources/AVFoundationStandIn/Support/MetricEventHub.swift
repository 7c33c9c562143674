#if os(Linux)
import Foundation

/// A publisher of the stand-in: where its events come from.
protocol MetricEventSource {
    var metricEvents: MetricEventHub { get }
}

/// The subscribers of one publisher's events: each `metrics(forType:)` sequence gets the events published
/// after it was made; every sequence ends when the publisher goes away.
final class MetricEventHub: Sendable {
    private let subscribers = Locked<(next: Int, all: [Int: AsyncStream<AVMetricEvent>.Continuation], ended: Bool)>(
        (0, [:], false))

    /// A stream of the events published from now on.
    func subscribe() -> AsyncStream<AVMetricEvent> {
        let (stream, continuation) = AsyncStream<AVMetricEvent>.makeStream()
        let ended = subscribers.withLock { state -> Bool in
            guard !state.ended else { return true }
            state.next += 1
            state.all[state.next] = continuation
            return false
        }
        if ended { continuation.finish() }
        return stream
    }

    /// Publishes `event` to every subscriber.
    func publish(_ event: AVMetricEvent) {
        for continuation in subscribers.withLock({ Array($0.all.values) }) { continuation.yield(event) }
    }

    /// Ends every subscriber's sequence.
    func end() {
        let all = subscribers.withLock { state in
            state.ended = true
            defer { state.all = [:] }
            return Array(state.all.values)
        }
        for continuation in all { continuation.finish() }
    }
}
#endif
