import NIOCore
import NIOHTTP1
import Spool

/// Performs `RequestAdmission` on every request of a connection, on the event loop before anything else sees
/// it: one that passes goes on (on the local network with the token stripped from its target); one that does
/// not is answered with its refusal and the connection closes, so nothing of it reaches the cache, the origin
/// or the control API, and no body it carries is read.
final class AdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let admission: RequestAdmission
    private let log: (@Sendable (ProxyLogRecord) -> Void)?
    /// What the connection's requests may name as their host, worked out once from the address it came in on.
    private var authorities: RequestAdmission.Authorities?
    /// A request was refused: the rest of it, and of the connection, is dropped.
    private var refused = false

    init(admission: RequestAdmission, log: (@Sendable (ProxyLogRecord) -> Void)?) {
        self.admission = admission
        self.log = log
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let address = context.channel.localAddress, let ip = address.ipAddress, let port = address.port {
            authorities = RequestAdmission.Authorities(
                local: RequestAdmission.LocalAddress(ip: ip, port: port), configuredHost: admission.configuredHost)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let verdict = admission.verdict(
            method: head.method.rawValue, target: head.uri, hosts: head.headers["host"],
            authorizations: head.headers["authorization"], authorities: authorities)
        switch verdict {
        case .admit(let target) where target == head.uri:
            // As it came: a head changed would be copied, fields and all.
            context.fireChannelRead(data)
        case .admit(let target):
            var stripped = head
            stripped.uri = target
            context.fireChannelRead(wrapInboundOut(.head(stripped)))
        case .refuse(let refusal):
            refused = true
            let (status, reason, fields) = refusal.response
            var headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: "\(reason.utf8.count + 1)")
            headers.add(name: "Connection", value: "close")
            headers.add(name: "Cache-Control", value: "no-store")
            let responseHead = HTTPResponseHead(
                version: head.version.major == 1 ? head.version : .http1_1,
                status: HTTPResponseStatus(statusCode: status), headers: headers)
            context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reason + "\n")))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            // Never the target: it may carry a guessed token or proof, or a caller's credentials.
            log?(
                ProxyLogRecord(
                    method: head.method.rawValue, target: "(refused before answering)", range: nil, status: status,
                    bodyBytes: Int64(reason.utf8.count + 1), failure: reason))
        }
    }
}
