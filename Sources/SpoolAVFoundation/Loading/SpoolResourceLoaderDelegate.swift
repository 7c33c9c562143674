#if !os(watchOS)
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation
import Spool

/// The resource loader delegate of a `SpoolAsset`: accepts the asset's requests and serves each from the
/// cache. Several concurrent, overlapping requests per asset are normal; each has its own handler.
///
/// `@unchecked Sendable` because `handlers` is touched only on `queue` (and in `deinit`, when nothing else
/// can reach the delegate any more); the other stored properties never change.
final class SpoolResourceLoaderDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    /// The queue every delegate call and every call on a loading request happens on.
    let queue: DispatchQueue
    private let cache: SpoolCache
    private let resource: Resource
    private var handlers: [ObjectIdentifier: LoadingRequestHandler] = [:]
    /// The asset's playback report, which every loading request adds to.
    let playback: PlaybackRecording
    /// The player item whose own figures go into the report (`SpoolAsset.reportPlayback(of:)`).
    let itemWatch: PlayerItemWatch

    init(cache: SpoolCache, resource: Resource) {
        self.cache = cache
        self.resource = resource
        queue = DispatchQueue(label: "Spool.ResourceLoader")
        playback = cache.playback.recording(
            item: CacheKeyPolicy.displayURL(for: resource.url), path: .avPlayer)
        itemWatch = PlayerItemWatch(recording: playback)
    }

    /// Finishes the playback report, with the player item's last figures.
    func finishPlayback() {
        itemWatch.readNow()
        playback.finish()
    }

    /// The asset is gone (it owns this delegate): AVFoundation will not cancel the requests it handed out, and
    /// each one accepted is owed a finish, so each is released with `NSURLErrorCancelled`. Its playback report
    /// is finished.
    deinit {
        finishPlayback()
        let abandoned = Array(handlers.values)
        guard !abandoned.isEmpty else { return }
        queue.async {
            for handler in abandoned { handler.release() }
        }
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool {
        guard let url = loadingRequest.request.url, SpoolURLScheme.unwrap(url) != nil else { return false }
        let id = ObjectIdentifier(loadingRequest)
        let handler = LoadingRequestHandler(
            request: loadingRequest, queue: queue, cache: cache, resource: resource, playback: playback)
        handlers[id] = handler
        handler.start { [weak self] in self?.handlers[id] = nil }
        return true
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
    ) {
        handlers.removeValue(forKey: ObjectIdentifier(loadingRequest))?.cancel()
    }

    /// Finishes every open request with `NSURLErrorCancelled` and stops its loading (the app gave up on the
    /// asset). Call on the queue.
    func releaseAll() {
        for handler in handlers.values { handler.release() }
        handlers.removeAll()
    }
}
#endif
