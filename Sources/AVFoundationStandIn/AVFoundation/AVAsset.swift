import Foundation

/// Stand-in for AVFoundation's `AVAsset`: only what a resource-loader adapter touches.
open class AVAsset: NSObject {
    /// Assets are created through subclasses (`AVURLAsset`), as on Apple platforms.
    override init() {
        super.init()
    }

    /// Cancels every loading request of this asset that is still open: each is marked cancelled and the
    /// delegate receives `resourceLoader(_:didCancel:)`, asynchronously on the delegate queue, as
    /// AVFoundation does. Apps call this when an item leaves the player, because switching items does not.
    open func cancelLoading() {
        loaderForCancellation?.cancelAllOpenRequests()
    }

    /// The loader whose requests `cancelLoading()` cancels; `AVURLAsset` provides its own.
    var loaderForCancellation: AVAssetResourceLoader? { nil }
}
