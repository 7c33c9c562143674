import Spool

/// Hands each `ProxyEvent` to every stream `SpoolProxy.events()` made that is still being read.
final class ProxyEventHub: Sendable {
    private let subscribers = LockedBox<(next: Int, all: [Int: AsyncStream<ProxyEvent>.Continuation])>(
        (0, [:]))

    /// A stream of the events from now on; it ends when `finish()` is called.
    func subscribe() -> AsyncStream<ProxyEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProxyEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.all[subscribers.next] = continuation
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells every subscriber.
    func publish(_ event: ProxyEvent) {
        let all = subscribers.withLock { Array($0.all.values) }
        for continuation in all { continuation.yield(event) }
    }

    /// Ends every stream.
    func finish() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers.all = [:] }
            return Array(subscribers.all.values)
        }
        for continuation in all { continuation.finish() }
    }
}
