import Foundation
public import Spool

/// Where a `SpoolProxy` listens and which origins it serves.
public struct ProxyConfiguration: Sendable {
    /// The address to listen on. Loopback by default: the proxy serves whatever its cache holds, so it is
    /// opened to other machines only on purpose.
    public var host: String
    /// The port; `0` picks a free one (read it from `SpoolProxy.baseURL`).
    public var port: Int
    /// The origin hosts the proxy may reach, lower-cased; `*.example.com` also allows every subdomain. Empty:
    /// no restriction beyond the one every proxy has, that it serves only URLs it made (`url(for:)` and the
    /// playlists it rewrote, each carrying a proof made with `urlKey`). Set it to refuse even those, and to
    /// leave a playlist's URIs on other hosts as the origin wrote them.
    public var allowedHosts: Set<String>
    /// The key the proxy signs its URLs with; `nil` (the default): a new random key for each proxy, so URLs
    /// die with the proxy that made them. An app whose proxy URLs must outlive a launch keeps a key in the
    /// Keychain and gives it here (see `ProxyURLKey`).
    public var urlKey: ProxyURLKey?
    /// Called once per answered request, on no particular thread (for a request answered from stored bytes at
    /// once, the connection's event loop: keep it short). Records carry no request or origin headers and no
    /// credential query items.
    public var log: (@Sendable (ProxyLogRecord) -> Void)?
    /// How long a client may take to hang up, once its socket has taken every byte of a "to the end"
    /// response sent so far, before the cache asks the origin for the bytes after the cached ones. Players
    /// abandon such requests; a longer grace spares the origin their unplayed bytes on a busier machine,
    /// while a client that keeps reading waits that long once when its response runs out of cached bytes.
    public var hangUpGrace: TimeInterval
    /// How many seconds of an HLS stream past the segment a player asked for last the proxy reads into the
    /// cache ahead of it (at prefetch priority, giving way to the player's reads); `0` turns read-ahead off.
    /// Players keep their own buffer: read-ahead covers the gaps a slow or bursty link leaves in it, and
    /// every second of it that is never played costs traffic, so the default is short: 10 s, a few segments.
    public var readAheadSeconds: Double
    /// The most bytes read ahead of a player, whatever `readAheadSeconds` says: 16 MiB by default, about
    /// 10 s of 12 Mbit/s video.
    public var readAheadBytes: Int64
    /// Whether HLS keys (`EXT-X-KEY`, `EXT-X-SESSION-KEY`) go through the cache like segments, so that an
    /// encrypted stream plays offline. `false` leaves their URIs as the origin wrote them: the player fetches
    /// each key itself, and no key is ever on disk. Either way, logs never name a key's URL.
    public var cachesKeys: Bool
    /// How the preloader the preload API drives (`SpoolProxy.preloadPath`) preloads: its window, targets
    /// and downloads at a time.
    public var preload: PreloadConfiguration
    /// The most connections open at once, loopback's and the local network's together: at the limit a new one
    /// closes the connection idle longest, or is closed itself when all are answering requests. Players open a
    /// handful each; 256 bounds what a flood of idle connections holds (each at most `ProxyServer.headLimits`).
    package var maximumConnections = 256
    /// How long after an item's last request its playback report is finished (`PlaybackReports.idleInterval`;
    /// shorter in tests).
    package var playbackIdleInterval = PlaybackReports.idleInterval

    /// A configuration; by default 127.0.0.1 on a free port, the URLs it makes on any origin host, a new URL
    /// key, no log, a 50 ms grace, 10 s of HLS read-ahead.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        allowedHosts: Set<String> = [],
        urlKey: ProxyURLKey? = nil,
        log: (@Sendable (ProxyLogRecord) -> Void)? = nil,
        hangUpGrace: TimeInterval = 0.05,
        readAheadSeconds: Double = 10,
        readAheadBytes: Int64 = 16 << 20,
        cachesKeys: Bool = true,
        preload: PreloadConfiguration = PreloadConfiguration()
    ) {
        self.host = host
        self.port = port
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.urlKey = urlKey
        self.log = log
        self.hangUpGrace = hangUpGrace
        self.readAheadSeconds = readAheadSeconds
        self.readAheadBytes = readAheadBytes
        self.cachesKeys = cachesKeys
        self.preload = preload
    }

    /// Whether requests may reach `host`.
    public func allows(host: String) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        let host = host.lowercased()
        return allowedHosts.contains { allowed in
            if allowed.hasPrefix("*.") { return host.hasSuffix(allowed.dropFirst(1)) }
            return allowed == host
        }
    }
}

/// One answered request, as the proxy logs it.
public struct ProxyLogRecord: Sendable, CustomStringConvertible {
    /// `GET` or `HEAD` (or the refused method).
    public var method: String
    /// The origin URL without credential query items, or the request path when it named no origin.
    public var target: String
    /// The `Range` header of the request, if any.
    public var range: String?
    /// The status sent.
    public var status: Int
    /// The body bytes sent.
    public var bodyBytes: Int64
    /// Why the request failed, when it did.
    public var failure: String?
    /// What else the proxy noticed while answering: URIs of a playlist it left alone (hosts not allowed), a
    /// live playlist served stale because its origin could not be reached.
    public var note: String?

    /// One line: `GET https://host/a.mp3 bytes=0-1 206 2`.
    public var description: String {
        var line = "\(method) \(target)"
        if let range { line += " \(range)" }
        line += " \(status) \(bodyBytes)"
        if let failure { line += " (\(failure))" }
        if let note { line += " [\(note)]" }
        return line
    }
}
