import NIOCore
import NIOHTTP1
import Spool

/// Checks each request on a connection from the local network against the `SharingGate`, on the event loop
/// before anything else sees it: one that passes goes on with the token stripped from its target; one that
/// does not is answered with its refusal and the connection closes, so nothing of it reaches the cache, the
/// origin or the control API.
final class SharingGateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let gate: SharingGate
    private let log: (@Sendable (ProxyLogRecord) -> Void)?
    /// A request was refused: the rest of it, and of the connection, is dropped.
    private var refused = false

    init(gate: SharingGate, log: (@Sendable (ProxyLogRecord) -> Void)?) {
        self.gate = gate
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        switch gate.admit(method: head.method.rawValue, target: head.uri) {
        case .success(let target):
            head.uri = target
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .failure(let refusal):
            refused = true
            let (status, reason) = refusal.response
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(reason.utf8.count + 1)")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            let responseHead = HTTPResponseHead(
                version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reason + "\n")))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            // Never the target: a guessed token is not for the log either.
            log?(
                ProxyLogRecord(
                    method: head.method.rawValue, target: "(refused on the local network)", range: nil, status: status,
                    bodyBytes: Int64(reason.utf8.count + 1), failure: reason))
        }
    }
}
