import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Spool

/// Asks a listening address whether this proxy answers there: `GET /ping` with `Connection: close` and a new
/// random challenge, and the answer must carry the proxy's proof for it (`ProxySecrets.pingProof`). A refused
/// or silent connection fails; so does another program that took the port: it accepts, but cannot make the
/// proof, nor replay one it saw (the challenge is new each time).
enum ListenerProbe {
    /// Where the clock's timers land.
    private static let timers = DispatchQueue(label: "spool.proxy.listener-probe")

    /// Whether the proxy holding `secrets` answers `GET path` at `address` within `timeout` seconds on
    /// `clock` (the connection itself is timed by NIO's connect timeout, a socket option).
    static func answers(
        at address: SocketAddress, path: String, secrets: ProxySecrets, clock: any SpoolClock,
        timeout: TimeInterval = 2
    ) async -> Bool {
        let group = MultiThreadedEventLoopGroup.singleton
        let loop = group.any()
        let answer = loop.makePromise(of: String.self)
        let challenge = ProxyURLMapping.randomBase64URL(byteCount: 16)
        // The Host field names the address itself, as every client of the proxy must.
        let ip = address.ipAddress ?? "127.0.0.1"
        let host = (ip.contains(":") ? "[\(ip)]" : ip) + ":\(address.port ?? 0)"
        let request =
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\n\(ProxySecrets.challengeField): \(challenge)\r\n"
            + "Connection: close\r\n\r\n"
        // A promise completed twice keeps its first result: the timer that fires after the answer does nothing.
        clock.schedule(at: clock.uptime + timeout, on: timers) { answer.fail(ProbeTimeout()) }
        var connected: Channel?
        defer {
            // Also when the answer never came (another program took the port and says nothing).
            connected?.close(promise: nil)
        }
        do {
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.nanoseconds(Int64(timeout * 1e9)))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HeadCollector(answer: answer))
                    }
                }
                .connect(to: address).get()
            connected = channel
            channel.writeAndFlush(ByteBuffer(string: request), promise: nil)
            let head = try await answer.futureResult.get()
            let expected = secrets.pingProof(for: challenge)
            let field = ProxySecrets.proofField.lowercased()
            // The field's name in any case; its value exactly (base64url is case-sensitive).
            return head.split(separator: "\r\n").contains { line in
                guard let colon = line.firstIndex(of: ":") else { return false }
                return line[..<colon].lowercased() == field
                    && line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) == expected
            }
        } catch {
            answer.fail(error)
            return false
        }
    }

    /// No answer came within the probe's timeout.
    private struct ProbeTimeout: Error {}

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
