import Foundation

/// An emulated network link on 127.0.0.1: a TCP relay in front of an origin that adds round-trip time, one
/// bandwidth cap shared by all connections, a per-connection window through which a slow reader pushes back,
/// and faults on demand (blackouts, resets, stalled connections) or on a seeded schedule.
///
/// Point clients at `baseURL` (or `url(for:)`) instead of the origin's. Every instance listens on its own free
/// port; call `stop()` (or drop it) when done.
public final class LinkEmulator: Sendable {
    private let core: LinkCore
    /// "http", or "https" for an origin that speaks TLS: the relay carries its bytes as they are.
    public let scheme: String

    /// Starts relaying from a free port on 127.0.0.1 to 127.0.0.1:`upstreamPort` with `profile`'s physics; URLs
    /// use `scheme` ("https" when the origin speaks TLS, whose handshake then crosses the link too).
    public init(upstreamPort: Int, profile: LinkProfile, scheme: String = "http") throws {
        core = try LinkCore(upstreamPort: upstreamPort, profile: profile)
        self.scheme = scheme
    }

    /// A link in front of `origin`.
    public convenience init(upstream origin: TestOrigin, profile: LinkProfile) throws {
        try self.init(upstreamPort: origin.port, profile: profile)
    }

    deinit {
        core.stop()
    }

    /// The link's physics and fault schedule.
    public var profile: LinkProfile { core.profile }

    /// The port clients connect to.
    public var port: Int { core.port }

    /// The origin's port, behind the link.
    public var upstreamPort: Int { core.upstreamPort }

    /// `http://127.0.0.1:PORT` (or `https://`), the link's end.
    public var baseURL: URL { URL(string: "\(scheme)://127.0.0.1:\(core.port)")! }

    /// The URL of `path` (e.g. "/media/song.mp3") on the origin, reached across the link.
    public func url(for path: String) -> URL {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return URL(string: "\(scheme)://127.0.0.1:\(core.port)\(absolute)")!
    }

    /// All counters, read together.
    public var counters: LinkCounters { core.state.withLock { $0.snapshot } }

    /// Bytes the link took from the origin, in flight included (see `LinkCounters.bytesFromUpstream`).
    public var bytesFromUpstream: Int64 { counters.bytesFromUpstream }

    /// Bytes handed to clients.
    public var bytesToClients: Int64 { counters.bytesToClients }

    /// Bytes handed to the origin.
    public var bytesToUpstream: Int64 { counters.bytesToUpstream }

    /// Client connections accepted since start or the last `resetCounters()`.
    public var connectionsAccepted: Int { counters.connectionsAccepted }

    /// Client connections open right now.
    public var openConnections: Int { counters.openConnections }

    /// The indices (0 for the first connection ever accepted, and so on) of the connections open now.
    public var openConnectionIndices: [Int] { core.state.withLock { $0.connections.keys.sorted() } }

    /// Zeroes the byte and connection counters; open connections stay counted as open.
    public func resetCounters() {
        core.state.withLock { $0.resetCounters() }
    }

    /// No byte moves in either direction for `seconds` from now; connections stay open and new ones wait.
    /// Overlapping blackouts end with the later one.
    public func blackout(seconds: TimeInterval) {
        core.blackout(seconds: seconds)
    }

    /// True while a blackout is in force.
    public var isBlackedOut: Bool {
        let now = LinkClock.now()
        return core.state.withLock { $0.blackoutUntil > now }
    }

    /// Closes every open connection abruptly on both sides: clients and origin see a reset, not an end of
    /// stream. New connections are unaffected.
    public func resetAllConnections() {
        core.resetAllConnections()
    }

    /// The next connection accepted moves no byte, in either direction, until `releaseStalls()`; others flow.
    /// Calls add up: two calls stall the next two connections.
    public func stallNextConnection() {
        core.state.withLock { $0.stallsPending += 1 }
    }

    /// Connection `index` (see `openConnectionIndices`) moves no byte until `releaseStalls()`.
    public func stallConnection(_ index: Int) {
        core.state.withLock { _ = $0.stalled.insert(index) }
    }

    /// Lets every stalled connection move again and cancels stalls still waiting for a connection.
    public func releaseStalls() {
        core.state.withLock { state in
            state.stalled.removeAll()
            state.stallsPending = 0
        }
    }

    /// Stops accepting, closes every connection and waits (at most ~2 s) for the emulator's threads to
    /// finish. Idempotent.
    public func stop() {
        core.stop()
    }
}
