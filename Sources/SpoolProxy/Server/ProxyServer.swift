import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Spool

/// The proxy's connections, whichever listening socket accepted them: HTTP/1.1 with keep-alive and
/// pipelining, one task per connection, started by the event loop that sets the connection up (through an
/// accept loop, a task woke only to start another). A listener that dies takes none of them with it (a
/// download another reader still needs carries on); `stop()` closes every one.
final class ProxyServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>
    /// A listening socket's channel; what it yields for each connection is only drained, the connection's
    /// task already runs.
    typealias Listener = NIOAsyncChannel<Void, Never>

    /// A connection that neither reads nor writes for this long is closed, so stalled clients give their
    /// resources back. A client that is still reading a paused stream has its socket full, not idle.
    static let idleTimeout: TimeInterval = 120

    /// The most a request head may take, the request line included (a field, and all of them): what a
    /// connection's parser may hold. Players send a few hundred bytes; a proxy URL of a long signed origin URL
    /// a few KiB. Beyond it the parser answers `400` and closes.
    static let headLimits: NIOHTTPDecoderLimitConfiguration = {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = 32 << 10
        limits.maxHeaderListSize = 64 << 10
        limits.maxHeaderFieldCount = 256
        return limits
    }()

    private let connections = LockedBox(ConnectionRegistry(), rank: .proxyConnections)
    /// What outlives every connection and listener: the HLS read-ahead, stopped last.
    private let readAhead: SegmentReadAhead
    /// The items being played, whose reports are finished when the proxy stops.
    private let playback: ProxyPlaybackItems

    init(readAhead: SegmentReadAhead, playback: ProxyPlaybackItems) {
        self.readAhead = readAhead
        self.playback = playback
    }

    /// Hands `descriptor`, a socket already bound and listening (`ListeningSocket`), to the event loop: its
    /// connections are answered by `responder`, behind `gate` when the socket faces the local network, and
    /// counted as `listenerID`'s. `acceptFailed` hears every accept error, which on a socket the system
    /// reclaimed is all it ever gets.
    func adopt(
        _ descriptor: CInt, listenerID: Int, responder: ProxyResponder, gate: SharingGate?,
        acceptFailed: @escaping @Sendable () -> Void
    ) async throws -> Listener {
        let admission = RequestAdmission(
            configuredHost: responder.configuration.host.lowercased(), secrets: responder.secrets, gate: gate)
        return try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptFailureWatch(acceptFailed))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .bind(descriptor) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let activity = ConnectionActivity(now: responder.cache.clock.uptime)
                    let (connection, pace, slices) = try Self.configure(
                        channel, responder: responder, admission: admission, activity: activity)
                    self.start(
                        connection, pace: pace, slices: slices, responder: responder, listenerID: listenerID,
                        activity: activity)
                }
            }
    }

    /// Starts the task that answers `connection`'s requests, or closes it once the server stops. Created and
    /// registered under the lock, so a task that ends at once still finds its entry. At the limit of
    /// connections (`ProxyConfiguration.maximumConnections`) the one idle longest is closed to make room (a
    /// client between requests opens a new one, as after any keep-alive close), or this one when every
    /// connection is answering a request: a flood of idle or slow connections cannot lock players out.
    private func start(
        _ connection: Connection, pace: ClientPace, slices: UnsentSlices, responder: ProxyResponder, listenerID: Int,
        activity: ConnectionActivity
    ) {
        let evicted = connections.withLock { registry -> Task<Void, Never>? in
            guard !registry.isStopping else {
                connection.channel.close(promise: nil)
                return nil
            }
            var evicted: Task<Void, Never>?
            if registry.tasks.count >= max(1, responder.configuration.maximumConnections) {
                evicted = registry.evictIdlest()
                guard evicted != nil else {
                    connection.channel.close(promise: nil)
                    return nil
                }
            }
            let id = registry.nextID()
            let task = Task {
                await Self.serve(connection, pace: pace, slices: slices, with: responder)
                self.connections.withLock { $0.ended(id) }
            }
            registry.tasks[id] = ConnectionRegistry.Entry(listener: listenerID, task: task, activity: activity)
            // A client that hangs up mid-response is noticed here at once (the socket reports it even while
            // the pipeline reads nothing), not at the next write: the response's reads end before they start
            // origin requests for a client that is gone.
            connection.channel.closeFuture.whenComplete { _ in task.cancel() }
            return evicted
        }
        // Closed once the lock is released: its cancellation closes its channel.
        evicted?.cancel()
    }

    private static func configure(
        _ channel: Channel, responder: ProxyResponder, admission: RequestAdmission, activity: ConnectionActivity
    ) throws -> (Connection, ClientPace, UnsentSlices) {
        // First, so it sits next to the socket and counts the encoded bytes.
        let slices = UnsentSlices()
        let tracker = SentBytesTracker(slices: slices)
        try channel.pipeline.syncOperations.addHandler(tracker)
        // Once closed, nothing more is sent: slices that never reached the socket go back.
        channel.closeFuture.whenComplete { _ in slices.closeAndReleaseAll() }
        // The protocol error handler answers malformed requests with 400 and closes.
        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: true, withEncoderConfiguration: .init(),
            withDecoderLimitConfiguration: headLimits)
        // Right above the encoder: every response head passes it, the protocol error handler's included.
        let encoder = try channel.pipeline.syncOperations.handler(type: HTTPResponseEncoder.self)
        try channel.pipeline.syncOperations.addHandler(DateFieldWriter(), position: .after(encoder))
        try channel.pipeline.syncOperations.addHandler(
            IdleConnectionCloser(timeout: idleTimeout, clock: responder.cache.clock, activity: activity))
        // Before anything answers: a request not addressed to this proxy, one from the local network without the
        // token, or one for the control API without its secret goes no further.
        try channel.pipeline.syncOperations.addHandler(
            AdmissionHandler(admission: admission, log: responder.configuration.log))
        try channel.pipeline.syncOperations.addHandler(StoredHitHandler(responder: responder, slices: slices))
        let connection = try Connection(
            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        let pace = ClientPace(
            channel: channel, tracker: NIOLoopBound(tracker, eventLoop: channel.eventLoop),
            grace: max(0, responder.configuration.hangUpGrace), clock: responder.cache.clock)
        return (connection, pace, slices)
    }

    /// Keeps `listener` accepting until it closes (`stop()`, or the socket failed). Its connections' tasks
    /// were started as they were set up; what it yields is drained, or it would stop accepting.
    func accept(on listener: Listener) async {
        do {
            try await listener.executeThenClose { inbound in
                for try await _ in inbound {}
            }
        } catch {
            // The listener closed: stopped, or the socket failed; either way no more connections from it.
        }
    }

    /// Closes the connections `listenerID` accepted (the local network's, when sharing stops) and waits for
    /// their tasks.
    func closeConnections(of listenerID: Int) async {
        let running = connections.withLock { registry in
            registry.tasks.values.filter { $0.listener == listenerID }.map(\.task) + registry.evicted.values
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    /// Closes every connection (bodies in progress break off), waits for their tasks, stops the read-ahead and
    /// finishes the playback reports of the items being played.
    /// Call it once the listeners are closed.
    func stop() async {
        let running = connections.withLock { registry in
            registry.isStopping = true
            return registry.tasks.values.map(\.task) + registry.evicted.values
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
        await readAhead.stop()
        playback.finishAll()
    }

    private static let tooLarge = FailureResponse(
        status: 413, reason: "a body larger than \(PreloadControl.bodyLimit) bytes")

    private static func serve(
        _ connection: Connection, pace: ClientPace, slices: UnsentSlices, with responder: ProxyResponder
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

/// The connections in progress, keyed by a counter, each with the listener that accepted it.
struct ConnectionRegistry {
    /// One connection: the listener that accepted it, the task answering it, and whether it is answering.
    struct Entry {
        let listener: Int
        let task: Task<Void, Never>
        let activity: ConnectionActivity
    }

    /// The connections that count towards the limit.
    var tasks: [UInt64: Entry] = [:]
    /// Connections closed to make room, until their tasks end: no longer counted, still waited for.
    private(set) var evicted: [UInt64: Task<Void, Never>] = [:]
    var isStopping = false
    private var counter: UInt64 = 0

    mutating func nextID() -> UInt64 {
        counter += 1
        return counter
    }

    /// The task of connection `id` has ended.
    mutating func ended(_ id: UInt64) {
        tasks[id] = nil
        evicted[id] = nil
    }

    /// Takes the connection idle longest (none answering a request) out of the count to make room for a new one,
    /// and returns its task for the caller to cancel once the lock is released; `nil` when every connection is
    /// answering a request.
    mutating func evictIdlest() -> Task<Void, Never>? {
        var oldest: (since: TimeInterval, id: UInt64)?
        for (id, entry) in tasks {
            guard let since = entry.activity.idleSince else { continue }
            if oldest.map({ since < $0.since }) ?? true { oldest = (since, id) }
        }
        guard let id = oldest?.id, let entry = tasks.removeValue(forKey: id) else { return nil }
        evicted[id] = entry.task
        return entry.task
    }
}
