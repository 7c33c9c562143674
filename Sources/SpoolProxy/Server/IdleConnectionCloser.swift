import NIOCore

/// Closes a connection that has neither read anything nor started a write for `timeout`, so stalled clients
/// give their resources back.
///
/// NIO's `IdleStateHandler` does the same by attaching a promise to every write to learn when it completed:
/// three promises and callbacks per response, and a zero-length write for each response's end, which it made
/// the encoder issue. Under many small requests that was a few percent of the proxy's CPU. Here a write counts
/// when it starts; a response the client has stopped reading starts no new write (the body waits for the
/// socket), so it still ends after `timeout`. Every method runs on the channel's event loop.
final class IdleConnectionCloser: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let timeout: TimeAmount
    private var lastActivity = NIODeadline.uptimeNanoseconds(0)
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastActivity = context.eventLoop.now
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        lastActivity = context.eventLoop.now
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard check == nil else { return }
        lastActivity = context.eventLoop.now
        schedule(context, at: lastActivity + timeout)
    }

    private func stop() {
        check?.cancel()
        check = nil
    }

    /// One timer per connection, moved only when it fires: activity in between costs a clock read (the event
    /// loop's, so a test's loop can move it).
    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            guard check != nil else { return }
            let due = lastActivity + timeout
            if due <= context.eventLoop.now {
                check = nil
                context.close(promise: nil)
            } else {
                schedule(context, at: due)
            }
        }
    }
}
