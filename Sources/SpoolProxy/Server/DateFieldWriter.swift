import NIOCore
import NIOHTTP1
import Spool

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Puts a `Date` field on every response head the connection sends (RFC 9110, section 6.6.1: an origin
/// server with a clock must), whoever wrote it: the task's responses, stored hits, refusals on the local
/// network, and NIO's own `400` for a malformed request. It sits just above the encoder, below all of them.
///
/// The text changes once a second, so each connection formats it at most once a second.
final class DateFieldWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var second = -1
    private var text = ""

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var head) = unwrapOutboundIn(data), !head.headers.contains(name: "date") else {
            context.write(data, promise: promise)
            return
        }
        let now = time(nil)
        if Int(now) != second {
            second = Int(now)
            text = HTTPDate.format(second)
        }
        head.headers.add(name: "Date", value: text)
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
