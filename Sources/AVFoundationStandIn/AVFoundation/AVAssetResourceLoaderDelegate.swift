import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoaderDelegate`.
///
/// Apple declares both methods `optional`; the extension below supplies Apple's behaviour for a delegate
/// that leaves one out.
public protocol AVAssetResourceLoaderDelegate: NSObjectProtocol {
    /// Asked, on the delegate queue, whether the delegate will load `loadingRequest`. Returning `true`
    /// obliges exactly one later `finishLoading()` / `finishLoading(with:)` unless the request is cancelled.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool
    /// Told, on the delegate queue, that `loadingRequest` was cancelled (`isCancelled` is already true);
    /// the delegate must not touch the request again.
    func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest)
}

extension AVAssetResourceLoaderDelegate {
    /// Apple's behaviour when the method is not implemented: the delegate does not load the resource.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader,
                               shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest) -> Bool {
        false
    }

    /// Apple's behaviour when the method is not implemented: nothing happens.
    public func resourceLoader(_ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest) {}
}
