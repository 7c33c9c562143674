import Foundation

/// A real HTTP/1.1 origin on 127.0.0.1 for tests, benchmarks and demos.
///
/// It serves byte ranges, validators and keep-alive correctly, and can be switched into
/// misbehaviours (see `TestOriginBehaviour`) to exercise a client's failure handling.
/// Every instance listens on its own free port; call `stop()` (or drop it) when done.
public final class TestOrigin: Sendable {
    private let core: OriginCore

    /// Starts listening on 127.0.0.1 on `port`, by default a free one (another port: an origin that comes
    /// back where one was stopped).
    public init(port: Int = 0) throws {
        core = try OriginCore(port: UInt16(port))
    }

    deinit {
        core.stop()
    }

    /// The port the origin listens on.
    public var port: Int { core.port }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(core.port)")! }

    /// The URL of `path` (e.g. "/media/song.mp3") on this origin.
    public func url(for path: String) -> URL {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return URL(string: "http://127.0.0.1:\(core.port)\(absolute)")!
    }

    /// Serves `content` at `path`, replacing any earlier content there; the replacement gets a
    /// new ETag and a later Last-Modified, as a changed file on a real server would.
    public func serve(_ content: TestContent, at path: String, contentType: String = "application/octet-stream") {
        core.serve(content, at: path.hasPrefix("/") ? path : "/" + path, contentType: contentType)
    }

    /// The misbehaviours in force; a change applies to requests that arrive after it.
    public var behaviour: TestOriginBehaviour {
        get { core.state.withLock { $0.behaviour } }
        set { core.state.withLock { $0.behaviour = newValue } }
    }

    /// Requests received (any method) since start or the last `resetCounters()`.
    public var requestCount: Int { core.state.withLock { $0.requestCount } }

    /// Response body bytes written to sockets since start or the last `resetCounters()`.
    public var bodyBytesSent: Int64 { core.state.withLock { $0.bodyBytesSent } }

    /// Client connections open right now: one that a client closed is gone once the origin notices, which
    /// for a response being written is at its next write.
    public var openConnectionCount: Int { core.state.withLock { $0.connections.count } }

    /// Every request received since start or the last `resetCounters()`, oldest first.
    public var requests: [RecordedRequest] { core.state.withLock { $0.records } }

    /// Zeroes the counters and forgets recorded requests; bytes still being sent for earlier
    /// requests are not counted afterwards.
    public func resetCounters() {
        core.state.withLock { $0.resetCounters() }
    }

    /// Stops listening, shuts down open connections and waits (at most ~5 s) for their
    /// threads to finish. Idempotent.
    public func stop() {
        core.stop()
    }
}
