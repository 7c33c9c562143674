import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening socket and its connections: HTTP/1.1 with keep-alive and pipelining, one task per
/// connection, every connection closed on `stop()`.
final class ProxyServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// An accepted connection and what its responses wait on before fetching ahead of the client.
    struct Accepted: Sendable {
        let connection: Connection
        let pace: ClientPace
        let slices: SliceLedger
    }

    /// A connection that neither reads nor writes for this long is closed, so stalled clients give their
    /// resources back. A client that is still reading a paused stream has its socket full, not idle.
    static let idleTimeout = TimeAmount.seconds(120)

    private let listener: NIOAsyncChannel<Accepted, Never>
    private let responder: ProxyResponder
    private let connections = NIOLockedValueBox(ConnectionRegistry())
    private let acceptLoop = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// The port the socket is bound to.
    let port: Int

    private init(listener: NIOAsyncChannel<Accepted, Never>, responder: ProxyResponder) {
        self.listener = listener
        self.responder = responder
        port = listener.channel.localAddress?.port ?? 0
    }

    /// Binds to `host:port` and starts accepting connections.
    static func start(host: String, port: Int, responder: ProxyResponder) async throws -> ProxyServer {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    // First, so it sits next to the socket and counts the encoded bytes.
                    let slices = SliceLedger()
                    let tracker = SentBytesTracker(slices: slices)
                    try channel.pipeline.syncOperations.addHandler(tracker)
                    // Once closed, nothing more is sent: slices that never reached the socket go back.
                    channel.closeFuture.whenComplete { _ in slices.closeAndReleaseAll() }
                    // The protocol error handler answers malformed requests with 400 and closes.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandlers([
                        IdleConnectionCloser(timeout: idleTimeout),
                        StoredHitHandler(responder: responder, slices: slices),
                    ])
                    let connection = try Connection(
                        wrappingChannelSynchronously: channel,
                        configuration: .init(isOutboundHalfClosureEnabled: true))
                    let pace = ClientPace(
                        channel: channel, tracker: NIOLoopBound(tracker, eventLoop: channel.eventLoop),
                        grace: .nanoseconds(Int64(max(0, responder.configuration.hangUpGrace) * 1e9)))
                    return Accepted(connection: connection, pace: pace, slices: slices)
                }
            }
        let server = ProxyServer(listener: listener, responder: responder)
        let loop = Task { await server.accept() }
        server.acceptLoop.withLockedValue { $0 = loop }
        return server
    }

    /// Stops accepting, closes every connection (bodies in progress break off) and waits for their tasks.
    func stop() async {
        try? await listener.channel.close()
        await acceptLoop.withLockedValue { $0 }?.value
        let running = connections.withLockedValue { registry in
            registry.isStopping = true
            return Array(registry.tasks.values)
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
        await responder.readAhead.stop()
    }

    private func accept() async {
        do {
            try await listener.executeThenClose { inbound in
                for try await accepted in inbound {
                    // Created and registered under the lock, so a task that ends at once still finds its entry.
                    connections.withLockedValue { registry in
                        guard !registry.isStopping else { return accepted.connection.channel.close(promise: nil) }
                        let id = registry.nextID()
                        let task = Task { [responder] in
                            await Self.serve(
                                accepted.connection, pace: accepted.pace, slices: accepted.slices, with: responder)
                            self.connections.withLockedValue { _ = $0.tasks.removeValue(forKey: id) }
                        }
                        registry.tasks[id] = task
                        // A client that hangs up mid-response is noticed here at once (the socket reports
                        // it even while the pipeline reads nothing), not at the next write: the response's
                        // reads end before they start origin requests for a client that is gone.
                        accepted.connection.channel.closeFuture.whenComplete { _ in task.cancel() }
                    }
                }
            }
        } catch {
            // The listener closed: `stop()` was called or the socket failed; either way no more connections.
        }
    }

    private static let tooLarge = FailureResponse(
        status: 413, reason: "a body larger than \(PreloadControl.bodyLimit) bytes")

    private static func serve(
        _ connection: Connection, pace: ClientPace, slices: SliceLedger, with responder: ProxyResponder
    ) async {
        let channel = connection.channel
        await withTaskCancellationHandler {
            do {
                try await connection.executeThenClose { inbound, outbound in
                    let writer = ProxyOutbound(writer: outbound, channel: channel, slices: slices)
                    // A request with a body (the preload API's) is answered at its end, with the body.
                    var waiting: (head: HTTPRequestHead, body: [UInt8])?
                    receiving: for try await part in inbound {
                        let head: HTTPRequestHead
                        var body: [UInt8] = []
                        switch part {
                        case .head(let received) where received.method == .GET || received.method == .HEAD:
                            // Their body parts, if a client sends any, are read and dropped.
                            head = received
                        case .head(let received):
                            let declared = received.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
                            // Refused before its body is sent (a client that asked `Expect: 100-continue`
                            // waits for this answer), or once more arrived than allowed; the connection
                            // closes, the rest unread.
                            guard declared <= PreloadControl.bodyLimit else {
                                try await responder.refuse(received, with: Self.tooLarge, writer: writer)
                                break receiving
                            }
                            waiting = (received, [])
                            continue
                        case .body(let chunk):
                            guard waiting != nil else { continue }
                            guard waiting!.body.count + chunk.readableBytes <= PreloadControl.bodyLimit else {
                                try await responder.refuse(waiting!.head, with: Self.tooLarge, writer: writer)
                                break receiving
                            }
                            waiting!.body += chunk.readableBytesView
                            continue
                        case .end:
                            guard let request = waiting else { continue }
                            (head, body, waiting) = (request.head, request.body, nil)
                        }
                        let keepAlive = head.isKeepAlive && !Task.isCancelled
                        try await responder.respond(
                            to: head, body: body, keepAlive: keepAlive, writer: writer, pace: pace)
                        if !keepAlive { break }
                    }
                    // Half-close after the last response has been flushed, then wait for the client to close.
                    outbound.finish()
                    try await channel.closeFuture.get()
                }
            } catch {
                // The client went away, sent garbage (answered 400 by the pipeline) or a body broke off.
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

/// The connections in progress, keyed by a counter.
struct ConnectionRegistry {
    var tasks: [UInt64: Task<Void, Never>] = [:]
    var isStopping = false
    private var counter: UInt64 = 0

    mutating func nextID() -> UInt64 {
        counter += 1
        return counter
    }
}
