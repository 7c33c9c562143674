import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// Closes a connection that has neither read anything nor started a write for `timeout`, so stalled clients
/// give their resources back; and tells the connection's `ConnectionActivity` when a request begins and its
/// response ends.
///
/// NIO's `IdleStateHandler` does the same by attaching a promise to every write to learn when it completed:
/// three promises and callbacks per response, and a zero-length write for each response's end, which it made
/// the encoder issue. Under many small requests that was a few percent of the proxy's CPU. Here a write counts
/// when it starts; a response the client has stopped reading starts no new write (the body waits for the
/// socket), so it still ends after `timeout`. Every method runs on the channel's event loop; the timer runs on
/// the cache's clock (`SpoolClock`), so a test moves the time instead of waiting two minutes.
final class IdleConnectionCloser: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a timer holds: not the handler itself, so a closed connection is freed at once rather than when
    /// its last timer (which the clock cannot cancel) comes due.
    private struct WeakCloser {
        weak var closer: IdleConnectionCloser?
    }

    /// Where the clock's timers land before they hop to the connection's event loop.
    private static let timers = DispatchQueue(label: "spool.proxy.idle-connections")

    private let timeout: TimeInterval
    private let clock: any SpoolClock
    private let activity: ConnectionActivity?
    private var lastActivity: TimeInterval = 0
    /// The connection while its timer is armed; nil once stopped.
    private var context: ChannelHandlerContext?
    /// Counts the timers set; a timer that is not the latest does nothing (the clock's timers cannot be
    /// cancelled, so a stopped or moved one still fires).
    private var timerNumber = 0

    init(timeout: TimeInterval, clock: any SpoolClock, activity: ConnectionActivity? = nil) {
        self.timeout = timeout
        self.clock = clock
        self.activity = activity
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
        lastActivity = clock.uptime
        if let activity, case .head = unwrapInboundIn(data) { activity.began(at: lastActivity) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // A response's end follows its last body write and carries no bytes of its own: it may pass here after
        // the client has read the whole body, and counting it would move the connection's last activity past
        // the moment the response really ended.
        if case .end = unwrapOutboundIn(data) {
            activity?.ended(at: clock.uptime)
        } else {
            lastActivity = clock.uptime
        }
        context.write(data, promise: promise)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard self.context == nil else { return }
        self.context = context
        lastActivity = clock.uptime
        schedule(at: lastActivity + timeout, on: context.eventLoop)
    }

    private func stop() {
        context = nil
        timerNumber += 1
    }

    /// One timer per connection, moved only when it fires: activity in between costs a clock read.
    private func schedule(at deadline: TimeInterval, on loop: any EventLoop) {
        timerNumber += 1
        let number = timerNumber
        let target = NIOLoopBound(WeakCloser(closer: self), eventLoop: loop)
        clock.schedule(at: deadline, on: Self.timers) {
            loop.execute { target.value.closer?.fire(number) }
        }
    }

    private func fire(_ number: Int) {
        guard number == timerNumber, let context else { return }
        let due = lastActivity + timeout
        if due <= clock.uptime {
            stop()
            context.close(promise: nil)
        } else {
            schedule(at: due, on: context.eventLoop)
        }
    }
}
