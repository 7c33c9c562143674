import Foundation

/// Stand-in for AVFoundation's `AVURLAsset`: a URL plus the resource loader that serves it.
open class AVURLAsset: AVAsset {
    /// The URL the asset was created with (for a resource loader, usually a custom scheme).
    public let url: URL
    /// The loader whose delegate AVFoundation asks for the asset's bytes.
    public let resourceLoader: AVAssetResourceLoader
    /// The creation options; kept so the signature matches Apple's, not interpreted.
    let options: [String: Any]?

    /// Creates an asset for `URL`, like `AVURLAsset(url:options:)`.
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        self.options = options
        self.resourceLoader = AVAssetResourceLoader()
        super.init()
    }

    override var loaderForCancellation: AVAssetResourceLoader? { resourceLoader }
}
