#if !os(watchOS)
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation
import Spool

/// An `AVURLAsset` that plays through Spool: what the player streams is cached on disk, and what is cached
/// plays without traffic, offline included.
///
/// ```swift
/// let asset = SpoolAsset(url: trackURL, cache: cache, headers: ["Authorization": "Bearer \(token)"])
/// player.replaceCurrentItem(with: AVPlayerItem(asset: asset))
/// ```
///
/// The asset owns its resource loader delegate (AVFoundation holds delegates weakly). When the asset goes
/// away, or `cancelLoading()` is called, every loading request still open is finished with
/// `NSURLErrorCancelled`: AVFoundation does not cancel them itself. A copy is the asset itself (it is
/// immutable), so a copy plays through the same cache. Not on watchOS, where `resourceLoader` does not exist.
///
/// Sendable like `AVURLAsset` (`NS_SWIFT_SENDABLE` from the iOS 18 SDK on; stated here for older SDKs):
/// every stored property is a `let` of a Sendable type.
public final class SpoolAsset: AVURLAsset, @unchecked Sendable {
    /// The URL the bytes come from (the asset's own `url` carries the rewritten scheme).
    public let originalURL: URL
    /// The cache the asset reads through.
    public let cache: SpoolCache
    /// The resource as the engine sees it: original URL, origin, cache key.
    public let resource: Resource
    private let loaderDelegate: SpoolResourceLoaderDelegate

    /// The key under which an error the asset's loading finished with carries the origin's HTTP status (an
    /// `Int`), when the origin refused: in `NSError.userInfo` of the `NSURLErrorDomain` error AVFoundation
    /// reports (the player item's `error`, its underlying error). A `403` from an expired signed URL is the
    /// app's cue to refresh it; a `404` is not worth retrying.
    public static let originStatusKey = "SpoolOriginStatus"

    /// An asset for `url` read through `cache`. `headers` go with every origin request (and are never
    /// stored); `origin` replaces the cache's origin for this asset (a cloud SDK, say); `cacheKey` replaces
    /// the key derived from the URL (for URLs whose host or signature rotates).
    public init(
        url: URL,
        cache: SpoolCache,
        headers: [String: String] = [:],
        origin: (any Origin)? = nil,
        cacheKey: String? = nil,
        options: [String: Any]? = nil
    ) {
        originalURL = url
        self.cache = cache
        let origin = origin ?? (headers.isEmpty ? nil : HTTPOrigin(modifier: HTTPOrigin.settingHeaders(headers)))
        resource = Resource(url: url, origin: origin, cacheKey: cacheKey)
        loaderDelegate = SpoolResourceLoaderDelegate(cache: cache, resource: resource)
        super.init(url: SpoolURLScheme.wrap(url) ?? url, options: options)
        resourceLoader.setDelegate(loaderDelegate, queue: loaderDelegate.queue)
    }

    /// Stops loading, including the requests AVFoundation itself does not cancel (an item that left an
    /// `AVQueuePlayer`): each open request is finished with `NSURLErrorCancelled`. Finishes the asset's
    /// playback report.
    public override func cancelLoading() {
        super.cancelLoading()
        let delegate = loaderDelegate
        delegate.queue.async { delegate.releaseAll() }
        delegate.finishPlayback()
    }

    /// Adds what `item` (the item playing this asset) says of its own playback to the asset's playback report
    /// (`SpoolCache.playback`): startup time, stalls and time watched, from its access log, and on iOS 18 and
    /// macOS 15 the time spent stalled, from its metric events (`AVMetrics`). Without it the report has the
    /// cache's side only (time to first byte, bytes by source, waits on the origin).
    ///
    /// ```swift
    /// let item = AVPlayerItem(asset: asset)
    /// asset.reportPlayback(of: item)
    /// player.replaceCurrentItem(with: item)
    /// ```
    public func reportPlayback(of item: AVPlayerItem) {
        loaderDelegate.itemWatch.watch(item)
    }

    /// Finishes the asset's playback report (`SpoolCache.playback`) now, rather than when the asset goes away
    /// or `cancelLoading()` is called: for an app that keeps assets after their playback ended. Requests made
    /// later are not reported.
    public func finishPlaybackReport() {
        loaderDelegate.finishPlayback()
    }

    /// The asset itself: it is immutable, and a copy made by `AVURLAsset` would have a resource loader
    /// without Spool's delegate (or would call an initializer `SpoolAsset` does not have).
    public override func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// The asset as an item of a feed for `SpoolPreloader`: the same resource, so what is preloaded is what
    /// the asset plays. `target` overrides the preloader's.
    public func preloadItem(id: String? = nil, target: PreloadTarget? = nil) -> PreloadItem {
        PreloadItem(resource: resource, id: id ?? originalURL.absoluteString, target: target)
    }

    /// Caches the first `length` bytes (or `range`) ahead of playback, sharing downloads with it.
    @discardableResult
    public func prefetch(from offset: Int64 = 0, length: Int64) async throws -> Int64 {
        try await cache.prefetch(resource, from: offset, length: length)
    }
}
#endif
