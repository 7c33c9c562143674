#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoaderDelegate`.
///
/// Checked against the iOS 17.2 and iOS 18.0 SDKs' `AVAssetResourceLoader.h` (no copy of Xcode 26's was found): an
/// `NSObject` protocol, neither
/// isolated nor Sendable, whose methods are all `@optional`. Linux has no `@objc optional`, so the extension
/// below supplies Apple's behaviour for a delegate that leaves one out; as on Apple platforms, a method whose
/// name does not match exactly is never called (the simulator then reports the request declined).
public protocol AVAssetResourceLoaderDelegate: NSObjectProtocol {
    /// Asked, on the delegate queue, whether the delegate will load `loadingRequest`. Returning `true`
    /// obliges exactly one later `finishLoading()` / `finishLoading(with:)` unless the request is cancelled.
    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool
    /// Told, on the delegate queue, that `loadingRequest` was cancelled (`isCancelled` turned true earlier,
    /// possibly on another thread); the delegate must not touch the request again.
    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest)
}

extension AVAssetResourceLoaderDelegate {
    /// Apple's behaviour when the method is not implemented: the delegate does not load the resource.
    public func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool {
        false
    }

    /// Apple's behaviour when the method is not implemented: nothing happens.
    public func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
    ) {}
}
#endif
