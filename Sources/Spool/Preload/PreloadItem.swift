import Foundation

/// An item of a feed: a video, a song or an HLS stream a user may play next.
public struct PreloadItem: Sendable, Identifiable {
    /// Names the item in events and states; by default its URL.
    public var id: String
    /// What to preload: the same resource (URL, origin, cache key) playback reads, so playback finds the bytes.
    public var resource: Resource
    /// How much of it; `nil` for the preloader's `PreloadConfiguration.target`.
    public var target: PreloadTarget?

    /// The item at `url`, read from the cache's origin under the cache's key for it.
    public init(url: URL, id: String? = nil, target: PreloadTarget? = nil) {
        self.init(resource: Resource(url: url), id: id, target: target)
    }

    /// The item `resource`.
    public init(resource: Resource, id: String? = nil, target: PreloadTarget? = nil) {
        self.id = id ?? resource.url.absoluteString
        self.resource = resource
        self.target = target
    }
}
