import NIOCore

/// Sits on a listening socket's channel and tells its listener of every accept that failed.
///
/// NIO closes the channel on most accept errors, which ends the accept loop; that the listener sees by
/// itself. A few it retries forever instead (`ECONNABORTED`, `EMFILE`, `ENFILE`, `ENOBUFS`, `ENOMEM`), and
/// `ECONNABORTED` on every accept is what a socket the system reclaimed from a suspended iOS app gives when
/// the app runs again, while every client is refused. So the listener checks: it connects to itself, and
/// listens anew if that is refused. The error goes on down the pipeline, to NIO's accept back-off.
final class AcceptFailureWatch: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private let acceptFailed: @Sendable () -> Void

    init(_ acceptFailed: @escaping @Sendable () -> Void) {
        self.acceptFailed = acceptFailed
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        acceptFailed()
        context.fireErrorCaught(error)
    }
}
