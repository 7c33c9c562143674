import NIOCore
import NIOPosix

/// Asks a listening address whether this proxy answers there: `GET /ping` with `Connection: close`, and the
/// answer must carry the proxy's instance in `X-Spool-Instance`. A refused or silent connection fails; so
/// does another program that took the port (it accepts, but cannot name the instance).
enum ListenerProbe {
    /// The field naming the proxy instance in answers to the ping.
    static let instanceField = "X-Spool-Instance"

    /// Whether `instance` answers `GET path` at `address` within `timeout`.
    static func answers(
        at address: SocketAddress, path: String, instance: String, timeout: TimeAmount = .seconds(2)
    ) async -> Bool {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.any()
        let answer = loop.makePromise(of: String.self)
        let request = "GET \(path) HTTP/1.1\r\nHost: spool\r\nConnection: close\r\n\r\n"
        let timer = loop.scheduleTask(in: timeout) { answer.fail(ChannelError.connectTimeout(timeout)) }
        var connected: Channel?
        defer {
            timer.cancel()
            // Also when the answer never came (another program took the port and says nothing).
            connected?.close(promise: nil)
        }
        do {
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HeadCollector(answer: answer))
                    }
                }
                .connect(to: address).get()
            connected = channel
            channel.writeAndFlush(ByteBuffer(string: request), promise: nil)
            let head = try await answer.futureResult.get()
            let expected = "\(instanceField.lowercased()): \(instance.lowercased())"
            return head.lowercased().split(separator: "\r\n").contains { $0 == expected }
        } catch {
            answer.fail(error)
            return false
        }
    }

    /// Collects the response head (at most 4 KiB) and completes `answer` with it.
    private final class HeadCollector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let answer: EventLoopPromise<String>
        private var received = ""

        init(answer: EventLoopPromise<String>) {
            self.answer = answer
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readString(length: buffer.readableBytes) ?? ""
            if let end = received.range(of: "\r\n\r\n") {
                answer.succeed(String(received[..<end.lowerBound]))
            } else if received.utf8.count > 4096 {
                answer.succeed(received)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            answer.succeed(received)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            answer.fail(error)
            context.close(promise: nil)
        }
    }
}
