import NIOCore

/// Counts the bytes of a connection that went down to the socket and those the socket accepted, so that a
/// response can wait until the client's side holds everything written so far. Sits next to the socket, below
/// the HTTP encoder; every method runs on the channel's event loop.
final class SentBytesTracker: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let slices: SliceLedger
    private var written: Int64 = 0
    private var accepted: Int64 = 0
    private var waiters: [(through: Int64, promise: EventLoopPromise<Void>)] = []
    private var closed = false

    /// A tracker that also releases the file slices of `slices` once their regions are sent.
    init(slices: SliceLedger) {
        self.slices = slices
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        let count = Int64(part.readableBytes)
        written += count
        var release: (@Sendable () -> Void)?
        if case .fileRegion(let region) = part { release = slices.takeRelease(of: region) }
        let done = promise ?? context.eventLoop.makePromise()
        // NIO completes write promises in the order of the writes, once the socket has taken their bytes.
        done.futureResult.assumeIsolated().whenComplete { result in
            // Sent or failed, the region is done with: its slice goes back to the cache.
            release?()
            switch result {
            case .success: self.didAccept(count)
            case .failure(let error): self.failWaiters(error)
            }
        }
        context.write(data, promise: done)
    }

    /// Called when the channel closes (its handlers are removed then), so no waiter outlives the connection.
    func handlerRemoved(context: ChannelHandlerContext) {
        failWaiters(ChannelError.ioOnClosedChannel)
    }

    /// Succeeds once the socket has accepted every byte written before the call; fails if the connection
    /// closes first.
    func allAccepted(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        if closed { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        if accepted >= written { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        waiters.append((written, promise))
        return promise.futureResult
    }

    private func didAccept(_ count: Int64) {
        accepted += count
        let due = waiters.filter { $0.through <= accepted }
        waiters.removeAll { $0.through <= accepted }
        for waiter in due { waiter.promise.succeed() }
    }

    private func failWaiters(_ error: any Error) {
        closed = true
        let failing = waiters
        waiters = []
        for waiter in failing { waiter.promise.fail(error) }
    }
}
