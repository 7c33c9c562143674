#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation
import Spool

/// The resource loader delegate of a `SpoolAsset`: accepts the asset's requests and serves each from the
/// cache. Several concurrent, overlapping requests per asset are normal; each has its own handler.
final class SpoolResourceLoaderDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    /// The queue every delegate call and every call on a loading request happens on.
    let queue: DispatchQueue
    private let cache: SpoolCache
    private let resource: Resource
    // Only touched on `queue`.
    private var handlers: [ObjectIdentifier: LoadingRequestHandler] = [:]

    init(cache: SpoolCache, resource: Resource) {
        self.cache = cache
        self.resource = resource
        queue = DispatchQueue(label: "Spool.ResourceLoader")
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool {
        guard let url = loadingRequest.request.url, SpoolURLScheme.unwrap(url) != nil else { return false }
        let id = ObjectIdentifier(loadingRequest)
        let handler = LoadingRequestHandler(request: loadingRequest, queue: queue, cache: cache, resource: resource)
        handlers[id] = handler
        handler.start { [weak self] in self?.handlers[id] = nil }
        return true
    }

    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {
        handlers.removeValue(forKey: ObjectIdentifier(loadingRequest))?.cancel()
    }

    /// Stops every request in progress (the asset left the player). Call on the queue.
    func cancelAll() {
        for handler in handlers.values { handler.cancel() }
        handlers.removeAll()
    }
}
