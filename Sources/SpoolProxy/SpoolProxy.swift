import Foundation
public import Spool
public import SpoolDownloads

/// A local HTTP caching proxy over a `SpoolCache`: any player that reads http URLs (ffmpeg, VLC, mpv, a
/// browser, AVPlayer with HLS) plays through the cache; an AirPlay receiver too, once shared on the local
/// network (`shareOnLocalNetwork`).
///
/// ```swift
/// let proxy = SpoolProxy(cache: cache)
/// try await proxy.start()
/// let playable = try proxy.url(for: URL(string: "https://cdn.example.com/song.mp3")!)
/// // … play `playable` …
/// await proxy.stop()
/// ```
///
/// The proxy keeps its URLs working through an app's life: when its listening socket dies (iOS reclaims it
/// while the app is suspended), it listens again on the same port, at once when it notices, at the latest on
/// `ensureListening()`, which an app calls on `willEnterForegroundNotification`; `events()` tells what
/// happened, and the rare move to another port.
///
/// It serves its own app and no one else (every app on an iOS device, and every web page on a Mac, can reach
/// loopback): only the URLs it made (each carries a proof made with `ProxyConfiguration.urlKey`), only requests
/// addressed to its own address (no DNS rebinding), its control API only with `controlToken`. See the
/// article's "Security model".
///
/// Requests follow RFC 9110: GET and HEAD, single, suffix and multiple ranges, `If-Range`, keep-alive.
/// Bodies stream with back-pressure, so memory does not grow with file size or slow clients. An origin's
/// refusal (4xx, 5xx) reaches the player as the origin's status, with its `Retry-After` and
/// `WWW-Authenticate`; a gateway failure (unreachable, silent, an invalid answer) is `502` or `504`; each
/// with a one-line reason, and nothing but origin bytes is ever cached.
public final class SpoolProxy: Sendable {
    /// The cache the proxy serves from and fills.
    public let cache: SpoolCache
    /// The configuration the proxy was made with.
    public let configuration: ProxyConfiguration
    /// The preloader the proxy's preload API (`preloadPath`) drives; an app in Swift may drive it directly
    /// (items by origin URL). `stop()` stops it.
    public let preloader: SpoolPreloader
    /// The download queue the proxy's download API (`downloadsPath`) drives, if it was given one. The app owns
    /// it: `stop()` leaves it running.
    public let downloads: DownloadQueue?
    /// The token of the URLs shared on the local network: one per proxy, so per launch of the app.
    private let gate = SharingGate()
    /// What the proxy's URLs, control API and ping prove: made with the proxy.
    private let secrets: ProxySecrets
    private let hub = ProxyEventHub()
    private let state = LockedBox(State.idle, rank: .proxyLifecycle)

    private enum State {
        case idle
        case starting
        case running(Running)
        case stopped
    }

    /// What a running proxy has: its connections, its loopback listener and, while shared, the local network's.
    struct Running {
        let server: ProxyServer
        let responder: ProxyResponder
        let loopback: ProxyListener
        var sharing: Sharing = .off
        /// The first request's set-up run ahead of it (`ProxyResponder.warmUp(rehearsingAgainst:)`), cancelled
        /// and awaited by `stop()`.
        var warmUp: Task<Void, Never>?
    }

    enum Sharing {
        case off
        case starting
        case on(ProxyListener)
    }

    /// The listener id of the local network's connections (loopback's are 0).
    private static let sharedListenerID = 1

    /// A proxy for `cache`, whose download API drives `downloads` (a queue over the same cache; without one
    /// the API answers 404); call `start()` to listen.
    public init(
        cache: SpoolCache, configuration: ProxyConfiguration = ProxyConfiguration(), downloads: DownloadQueue? = nil
    ) {
        self.cache = cache
        self.configuration = configuration
        self.downloads = downloads
        preloader = SpoolPreloader(cache: cache, configuration: configuration.preload)
        secrets = ProxySecrets(urlKey: configuration.urlKey)
    }

    /// The secret of the proxy's control API (`statisticsPath`, `preloadPath`, `downloadsPath` and every
    /// other path but media and the ping): a caller sends `Authorization: Bearer <controlToken>`, and a request
    /// without it is refused with `401` before its body is read. 256 random bits, new for each proxy. Hand it
    /// only to code of the app's own (a web view's script that drives the preload API); never log it.
    public var controlToken: String { secrets.controlToken }

    /// Binds the socket and starts serving; returns the base URL (`http://127.0.0.1:PORT`).
    @discardableResult
    public func start() async throws -> URL {
        try state.withLock { state in
            guard case .idle = state else { throw ProxyError.alreadyStarted }
            state = .starting
        }
        let responder = ProxyResponder(
            cache: cache, configuration: configuration, secrets: secrets, preloader: preloader, downloads: downloads)
        let server = ProxyServer(readAhead: responder.readAhead, playback: responder.playback)
        let listener: ProxyListener
        do {
            listener = try await ProxyListener.start(
                id: 0, host: configuration.host, port: configuration.port, server: server, responder: responder,
                announce: { [hub] in hub.publish($0) })
        } catch {
            state.withLock { $0 = .idle }
            // A host name that does not resolve fails before any socket: NIO's words name no cause.
            throw error as? ProxyError
                ?? ProxyError.cannotListen(
                    "\(configuration.host):\(configuration.port): \(configuration.host) does not resolve to an address of "
                        + "this machine (\(error))")
        }
        // Running before anything else can throw: a proxy left in `starting` could never be stopped.
        state.withLock { $0 = .running(Running(server: server, responder: responder, loopback: listener)) }
        // The first request's one-time set-up, paid now rather than by the first player, in the background (a
        // request that comes first only shares the work): with the rehearsed read, a fresh `spool serve`'s first
        // byte of a cold 546 KB file came in 2.37 ms against 2.80, a later file's in 2.1 (medians of 20 serves).
        let baseURL = try listener.mapping().baseURL
        let ping = ProxyURLMapping.pingURL(at: baseURL)
        let warmUp = Task.detached(priority: .utility) { await responder.warmUp(rehearsingAgainst: ping) }
        // Stopped meanwhile: nothing would wait for it.
        if updateRunning({ $0.warmUp = warmUp }) == nil { warmUp.cancel() }
        return baseURL
    }

    /// The path the proxy answers with `200 pong` (`GET` and `HEAD`) without touching the cache, to anybody (it
    /// tells nothing but that a proxy listens). An app need not ping the proxy after a suspension:
    /// `ensureListening()` does what that check was for.
    public static let pingPath = "/ping"

    /// The path the proxy answers with its cache's `CacheStatistics` as JSON (bytes served from the cache and
    /// from the origin, fetched, evicted, the hit ratio), for an app's analytics or a dashboard; with
    /// `controlToken`, as every control path.
    public static let statisticsPath = "/statistics"

    /// The path the proxy answers with its cache's playback reports as JSON (`{"summary": …, "reports": […]}`:
    /// `PlaybackSummary` and the `PlaybackReports.recent()` reports), with `controlToken`.
    public static let playbackPath = "/playback"

    /// The path of the preload API, for apps that drive the proxy over HTTP (with `controlToken`): `PUT` the feed as
    /// `{"items": [{"url": "<proxy or origin URL>", "id": "…", "seconds": 3}], "current": 0}`, `PUT` each
    /// swipe to `/preload/current` as `{"index": 1}` or `{"id": "…"}`, `GET` the items' states and the
    /// totals, `DELETE` to empty the feed. Every answer is that state as JSON; a refused request gets 400
    /// (what is wrong), 403 (a host not allowed) or 413.
    public static let preloadPath = "/preload"

    /// The path of the download API, for apps that drive the proxy over HTTP (with `controlToken`): `PUT` downloads as
    /// `{"items": [{"url": "<proxy or origin URL>", "id": "…", "title": "…"}]}` (an HLS playlist with `"variants":
    /// "highest" | "first" | "all"`), `PUT` `{"ids": […], "state": "paused" | "queued"}` to `/downloads/state`,
    /// `DELETE` with `{"ids": […]}` (or `?id=…`) to remove, `GET` the queue. Every answer is the queue as
    /// JSON: each download's `state` (`queued`, `waiting` with `waitingFor`, `downloading` with `bytes` and
    /// `total`, `paused`, `completed`, `failed` with `failure`) and the totals. A proxy made without a
    /// `DownloadQueue` answers 404.
    public static let downloadsPath = "/downloads"

    /// The base URL while the proxy listens (`nil` before `start()`, after `stop()`, and while no socket
    /// could be bound).
    public var baseURL: URL? {
        try? running().loopback.mapping().baseURL
    }

    /// The proxy URL that plays `originURL` through the cache, with the proof that this proxy made it (a proxy
    /// serves no URL it did not make). It stays valid for as long as the proxy runs, and after a move to
    /// another port its path does (ask again for the new address); with a kept `ProxyConfiguration.urlKey`,
    /// across launches too. It looks at the listening socket first (one
    /// system call): one that was closed or stopped listening is replaced on the same port before this returns;
    /// when no socket can be bound it throws `ProxyError.notListening` rather than name a dead port. A socket
    /// iOS reclaimed may still look alive here: `ensureListening()` pings it. Throws before `start()` and for
    /// anything but an http or https URL.
    public func url(for originURL: URL) throws -> URL {
        try running().loopback.mapping().proxyURL(for: originURL)
    }

    /// Makes sure the proxy accepts connections, and returns its base URL: it pings its own socket, and if
    /// this proxy does not answer there (iOS reclaims the listening socket of a suspended app, and nothing may report
    /// it until a player is refused) it listens again, on the same port unless that was taken meanwhile (then
    /// `events()` says `moved`, and the base URL returned is the new one). The local network's socket, while
    /// shared, is checked the same way. Call it when the app returns to the foreground
    /// (`UIApplication.willEnterForegroundNotification`), before its players load anything.
    @discardableResult
    public func ensureListening() async throws -> URL {
        let running = try running()
        if case .on(let shared) = running.sharing { _ = try? await shared.ensureListening() }
        return try await running.loopback.ensureListening().baseURL
    }

    /// What happens to the proxy's listening sockets from now on: lost, listening again, moved to another
    /// port, or unable to listen (see `ProxyEvent`). The stream ends when the proxy stops.
    public func events() -> AsyncStream<ProxyEvent> {
        hub.subscribe()
    }

    /// Stops listening, closes every connection, stops the preloader and waits until they are gone. The
    /// cache stays open; call `cache.close()` before the process exits so its index holds everything written.
    public func stop() async {
        let running: Running? = state.withLock { state in
            defer { state = .stopped }
            if case .running(let running) = state { return running }
            return nil
        }
        if let running {
            running.warmUp?.cancel()
            await running.warmUp?.value
            if case .on(let shared) = running.sharing { await shared.stop() }
            await running.loopback.stop()
            await running.server.stop()
        }
        await preloader.stop()
        hub.finish()
    }

    // MARK: - The local network

    /// Opens the proxy to other devices on the local network, so an AirPlay receiver (an Apple TV) can fetch
    /// what the app plays through it: an AirPlay video receiver is handed the stream's URL and fetches it
    /// itself, and `127.0.0.1` is its own loopback, not the phone. Returns the base of the shared URLs,
    /// `http://ADDRESS:PORT/s/<token>`; `sharedURL(for:)` maps origin URLs under it.
    ///
    /// Only what is asked for, only while asked: every shared path carries a token of 128 random bits made
    /// per proxy, and a request without it is refused, as is anything but GET or HEAD of media (never the
    /// control API); each URL carries its proof as on loopback, so a device holding shared URLs reaches only
    /// what they name. Listens on `address` (by default the device's Wi-Fi or Ethernet IPv4 address) and
    /// `port` (`0`: a free one). Call `stopSharingOnLocalNetwork()` when the receiver is done (when
    /// `AVPlayer.isExternalPlaybackActive` turns false).
    @discardableResult
    public func shareOnLocalNetwork(address: String? = nil, port: Int = 0) async throws -> URL {
        let claimed = try state.withLock { state -> (ProxyServer, ProxyResponder)? in
            guard case .running(var running) = state else { throw ProxyError.notRunning }
            guard case .off = running.sharing else { return nil }
            running.sharing = .starting
            state = .running(running)
            return (running.server, running.responder)
        }
        guard let (server, responder) = claimed else { throw ProxyError.alreadySharing }
        let listener: ProxyListener
        do {
            guard let host = address ?? LocalNetworkAddress.find() else { throw ProxyError.noLocalNetwork }
            listener = try await ProxyListener.start(
                id: Self.sharedListenerID, host: host, port: port, server: server,
                responder: responder.scoped(to: gate.scope), gate: gate, announce: { [hub] in hub.publish($0) })
        } catch {
            updateRunning { $0.sharing = .off }
            throw error
        }
        let kept = updateRunning { running -> Bool in
            guard case .starting = running.sharing else { return false }
            running.sharing = .on(listener)
            return true
        }
        guard kept == true else {
            // Stopped meanwhile.
            await listener.stop()
            throw ProxyError.notRunning
        }
        return try listener.mapping().scopedBaseURL
    }

    /// The URL under which a device on the local network plays `originURL` through the cache, while the
    /// proxy is shared (`shareOnLocalNetwork`). Throws otherwise, and as `url(for:)` does.
    public func sharedURL(for originURL: URL) throws -> URL {
        guard case .on(let shared) = try running().sharing else { throw ProxyError.notShared }
        return try shared.mapping().proxyURL(for: originURL)
    }

    /// Closes the local network's socket and the connections it accepted. Shared URLs stop working; the
    /// proxy goes on serving loopback.
    public func stopSharingOnLocalNetwork() async {
        let shared = updateRunning { running -> ProxyListener? in
            guard case .on(let shared) = running.sharing else { return nil }
            running.sharing = .off
            return shared
        }
        guard let shared = shared ?? nil else { return }
        await shared.stop()
        if let running = try? running() { await running.server.closeConnections(of: shared.id) }
    }

    /// The running proxy's parts; throws `ProxyError.notRunning` when it is not running.
    func running() throws -> Running {
        try state.withLock { state in
            guard case .running(let running) = state else { throw ProxyError.notRunning }
            return running
        }
    }

    private func updateRunning<Result>(_ body: (inout Running) -> Result) -> Result? {
        state.withLock { state in
            guard case .running(var running) = state else { return nil }
            let result = body(&running)
            state = .running(running)
            return result
        }
    }
}
