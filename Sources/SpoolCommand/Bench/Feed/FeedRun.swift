import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolDownloads
import SpoolProxy
import SpoolTesting

/// One pass over the feed across one emulated link, in one way: straight from the origin, through Spool
/// without preloading, through Spool with a `SpoolPreloader`, or through a Spool cache that holds every
/// item whole (the reference for start-up).
final class FeedRun {
    enum Way: String, CaseIterable {
        case direct = "direct"
        case spool = "Spool, no preload"
        case preload = "Spool + preload"
        case cached = "Spool, all cached"
    }

    /// What the pass measured, per item in feed order.
    struct Result {
        var firstFrame: [Double] = []
        var longestWait: [Double] = []
        /// The paths of the items played, in order, and what the player's own log and progress said of each:
        /// its first media response and its waits (`FeedPlayer.Play`).
        var played: [String] = []
        var firstMediaResponse: [Double?] = []
        var waitTime: [Double] = []
        var originBytes: Int64 = 0
        /// Bytes the origin sent twice or more over the pass (ranges of one path overlapping), by path.
        var duplicates: [String: Int64] = [:]
        var duplicateBytes: Int64 { duplicates.values.reduce(0, +) }
        var totals: PreloadTotals?
        /// For the preload pass: the bytes each item's plan covers, for items preloaded and never opened.
        var skippedTargetBytes: Int64 = 0
        /// The cache's playback reports of the items played, in the order they started (none for direct).
        var reports: [PlaybackReport] = []
    }

    let way: Way
    let link: LinkEmulator
    private let directory: URL
    private let trustRoots: [URL]
    private var cache: SpoolCache?
    private var transport: AsyncHTTPClientTransport?
    private var proxy: SpoolProxy?
    private(set) var preloader: SpoolPreloader?

    /// A pass over a new link to `originPort` (speaking `scheme`, with a certificate of one of `trustRoots`);
    /// `cacheDirectory` is reused by a cached pass after a preload pass.
    init(
        way: Way, originPort: Int, profile: LinkProfile, cacheDirectory: URL, scheme: String = "http",
        trustRoots: [URL] = []
    ) throws {
        self.way = way
        link = try LinkEmulator(upstreamPort: originPort, profile: profile, scheme: scheme)
        directory = cacheDirectory
        self.trustRoots = trustRoots
    }

    func start() async throws {
        guard way != .direct else { return }
        let transport = AsyncHTTPClientTransport(additionalTrustRoots: trustRoots)
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: directory, origin: HTTPOrigin(transport: transport)))
        let proxy = SpoolProxy(cache: cache)
        _ = try await proxy.start()
        (self.transport, self.cache, self.proxy) = (transport, cache, proxy)
        if way == .preload { preloader = SpoolPreloader(cache: cache) }
    }

    func stop() async {
        await preloader?.stop()
        await proxy?.stop()
        await cache?.close()
        await transport?.shutdown()
        link.stop()
    }

    /// The playback reports of this pass's items (the proxy finishes them when it stops), oldest first.
    func playbackReports(since start: Date) async -> [PlaybackReport] {
        guard let cache else { return [] }
        return await cache.playback.recent().filter { $0.startedAt >= start }.sorted { $0.startedAt < $1.startedAt }
    }

    /// The origin URL of `path` across the link.
    func originURL(_ path: String) -> URL { link.url(for: path) }

    /// What the player opens for `path`.
    func playerURL(_ path: String) throws -> URL {
        guard let proxy else { return originURL(path) }
        return try proxy.url(for: originURL(path))
    }

    /// Makes every item whole in the cache (the cached pass's set-up; not measured).
    func cacheWhole(_ items: [FeedMedia.Item]) async throws {
        guard let cache else { return }
        for item in items {
            if item.isHLS {
                _ = try await HLSPinning(cache: cache).pin(originURL(item.path), variants: .all)
            } else {
                try await cache.prefetch(Resource(url: originURL(item.path)))
            }
        }
    }
}
