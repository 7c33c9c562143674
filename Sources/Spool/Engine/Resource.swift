import Foundation

/// A resource to read: where it is, who serves it and under which cache key it is stored.
public struct Resource: Sendable {
    /// The resource's URL, as the origin understands it. For a non-HTTP origin, any URL that names it
    /// (`disk:/Music/song.mp3`).
    public var url: URL
    /// The origin that serves it; `nil` for the cache's configured origin.
    public var origin: (any Origin)?
    /// The cache key; `nil` for the cache's key policy applied to `url`.
    public var cacheKey: String?

    /// A resource at `url`, served by `origin` (default: the cache's), stored under `cacheKey` (default:
    /// derived from the URL by the cache's key policy).
    public init(url: URL, origin: (any Origin)? = nil, cacheKey: String? = nil) {
        self.url = url
        self.origin = origin
        self.cacheKey = cacheKey
    }
}
