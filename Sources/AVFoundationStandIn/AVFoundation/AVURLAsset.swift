#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVURLAsset`: a URL plus the resource loader that serves it.
///
/// Checked against the iOS 18.0 SDK's `AVAsset.h` (Xcode 16) and the macOS 26.1 SDK's (Xcode 26):
/// `AVURLAsset` is `NS_SWIFT_SENDABLE` (imported as `@unchecked Sendable`; it was not in the iOS 17 SDK) while
/// `AVAsset` is not; `resourceLoader` is `nonnull` and `API_UNAVAILABLE(watchos)`.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The URL the asset was created with (for a resource loader, usually a custom scheme).
    public let url: URL
    /// The loader whose delegate AVFoundation asks for the asset's bytes.
    @available(watchOS, unavailable)
    public let resourceLoader: AVAssetResourceLoader
    /// The creation options (`NSDictionary<NSString *, id> *`, nullable); kept so copies carry them.
    let options: [String: Any]?

    /// Creates an asset for `URL`, like `AVURLAsset(url:options:)`.
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        self.options = options
        self.resourceLoader = AVAssetResourceLoader()
        super.init()
    }

    /// A new `AVURLAsset` of the same URL and options, with a loader of its own and no delegate: a subclass
    /// that keeps state (a delegate it owns) must override this.
    open override func copy(with zone: NSZone? = nil) -> Any {
        AVURLAsset(url: url, options: options)
    }

    override var loaderForCancellation: AVAssetResourceLoader? { resourceLoader }
}
#endif
