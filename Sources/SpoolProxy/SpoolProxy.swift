import Foundation
import NIOConcurrencyHelpers
public import Spool

/// A local HTTP caching proxy over a `SpoolCache`: any player that reads http URLs (ffmpeg, VLC, mpv, a
/// browser, AVPlayer with HLS or AirPlay) plays through the cache.
///
/// ```swift
/// let proxy = SpoolProxy(cache: cache)
/// try await proxy.start()
/// let playable = try proxy.url(for: URL(string: "https://cdn.example.com/song.mp3")!)
/// // … play `playable` …
/// await proxy.stop()
/// ```
///
/// Requests follow RFC 9110: GET and HEAD, single, suffix and multiple ranges, `If-Range`, keep-alive.
/// Bodies stream with back-pressure, so memory does not grow with file size or slow clients. Origin
/// failures become `502` or `504` with a one-line reason; nothing but origin bytes is ever cached.
public final class SpoolProxy: Sendable {
    /// The cache the proxy serves from and fills.
    public let cache: SpoolCache
    /// The configuration the proxy was made with.
    public let configuration: ProxyConfiguration
    /// The preloader the proxy's preload API (`preloadPath`) drives; an app in Swift may drive it directly
    /// (items by origin URL). `stop()` stops it.
    public let preloader: SpoolPreloader
    private let state = NIOLockedValueBox(State.idle)

    private enum State {
        case idle
        case starting
        case running(ProxyServer, ProxyURLMapping)
        case stopped
    }

    /// A proxy for `cache`; call `start()` to listen.
    public init(cache: SpoolCache, configuration: ProxyConfiguration = ProxyConfiguration()) {
        self.cache = cache
        self.configuration = configuration
        preloader = SpoolPreloader(cache: cache, configuration: configuration.preload)
    }

    /// Binds the socket and starts serving; returns the base URL (`http://127.0.0.1:PORT`).
    @discardableResult
    public func start() async throws -> URL {
        try state.withLockedValue { state in
            guard case .idle = state else { throw ProxyError.alreadyStarted }
            state = .starting
        }
        do {
            let server = try await ProxyServer.start(
                host: configuration.host, port: configuration.port,
                responder: ProxyResponder(cache: cache, configuration: configuration, preloader: preloader))
            let mapping = ProxyURLMapping(host: configuration.host, port: server.port)
            state.withLockedValue { $0 = .running(server, mapping) }
            return mapping.baseURL
        } catch {
            state.withLockedValue { $0 = .idle }
            throw ProxyError.cannotListen("\(configuration.host):\(configuration.port): \(error)")
        }
    }

    /// The path the proxy answers with `200 pong` (`GET` and `HEAD`) without touching the cache: a check
    /// that it is listening, as after an app returns from the background.
    public static let pingPath = "/ping"

    /// The path the proxy answers with its cache's `CacheStatistics` as JSON (bytes served from the cache and
    /// from the origin, fetched, evicted, the hit ratio), for an app's analytics or a dashboard.
    public static let statisticsPath = "/statistics"

    /// The path of the preload API, for apps that drive the proxy over HTTP: `PUT` the feed as
    /// `{"items": [{"url": "<proxy or origin URL>", "id": "…", "seconds": 3}], "current": 0}`, `PUT` each
    /// swipe to `/preload/current` as `{"index": 1}` or `{"id": "…"}`, `GET` the items' states and the
    /// totals, `DELETE` to empty the feed. Every answer is that state as JSON; a refused request gets 400
    /// (what is wrong), 403 (a host not allowed) or 413.
    public static let preloadPath = "/preload"

    /// The base URL while the proxy runs.
    public var baseURL: URL? {
        state.withLockedValue { state in
            if case .running(_, let mapping) = state { return mapping.baseURL }
            return nil
        }
    }

    /// The proxy URL that plays `originURL` through the cache. Throws before `start()` and for anything
    /// but an http or https URL.
    public func url(for originURL: URL) throws -> URL {
        let mapping: ProxyURLMapping? = state.withLockedValue { state in
            if case .running(_, let mapping) = state { return mapping }
            return nil
        }
        guard let mapping else { throw ProxyError.notRunning }
        return try mapping.proxyURL(for: originURL)
    }

    /// Stops listening, closes every connection, stops the preloader and waits until they are gone. The
    /// cache stays open; call `cache.close()` before the process exits so its index holds everything written.
    public func stop() async {
        let server: ProxyServer? = state.withLockedValue { state in
            defer { state = .stopped }
            if case .running(let server, _) = state { return server }
            return nil
        }
        await server?.stop()
        await preloader.stop()
    }
}

/// Why a proxy cannot start or map a URL.
public enum ProxyError: Error, Sendable, CustomStringConvertible {
    /// `start()` was called twice.
    case alreadyStarted
    /// The proxy is not running.
    case notRunning
    /// The socket could not be bound (address in use, not allowed).
    case cannotListen(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .alreadyStarted: "the proxy was already started"
        case .notRunning: "the proxy is not running"
        case .cannotListen(let reason): "cannot listen on \(reason)"
        }
    }
}
