#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAsset`: only what a resource-loader adapter touches.
///
/// Checked against the iOS 17.0, iOS 18.0 and macOS 26.1 SDKs' `AVAsset.h`: `NSObject <NSCopying,
/// AVAsynchronousKeyValueLoading>`, not main-actor isolated and not Sendable (`AVPlayerItem.h` isolates
/// `asset` for that reason); `cancelLoading` is declared in the `AVAssetAsynchronousLoading` category.
open class AVAsset: NSObject, NSCopying {
    /// Assets are created through subclasses (`AVURLAsset`), as on Apple platforms.
    override init() {
        super.init()
    }

    /// Cancels the loading of the asset's values (`loadValuesAsynchronously(forKeys:)`), which is all Apple
    /// documents. Apple does not say that it cancels or finishes the resource loader's open requests, so the
    /// stand-in does neither: it only notes that the app gave up on the asset, after which finishing the
    /// requests with a cancellation error is what the simulator expects.
    open func cancelLoading() {
        loaderForCancellation?.appCancelledLoading()
    }

    /// `NSCopying`. What a copy keeps is not documented; the stand-in gives an adapter the worst case it has
    /// to survive: a new asset whose loader has no delegate (see `AVURLAsset`).
    open func copy(with zone: NSZone? = nil) -> Any {
        self
    }

    /// The loader whose requests `cancelLoading()` concerns; `AVURLAsset` provides its own.
    var loaderForCancellation: AVAssetResourceLoader? { nil }
}
#endif
