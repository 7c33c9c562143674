import Foundation

/// What an origin says about a resource: its size, type and version.
public struct ContentInfo: Sendable, Hashable, Codable {
    /// The total length in bytes.
    public var length: Int64
    /// The MIME type without parameters, lower-cased (`video/mp4`); `nil` when the origin does not say.
    public var mimeType: String?
    /// Whether the origin serves byte ranges. A server that answers a range with the whole body turns it off.
    public var acceptsRanges: Bool
    /// The entity tag, as sent (quotes and any `W/` prefix included).
    public var entityTag: String?
    /// The `Last-Modified` date, as sent.
    public var lastModified: String?
    /// The URL that served the resource when the origin was redirected away from the one asked for; `nil`
    /// when the requested URL answered. Relative references inside the resource (an HLS playlist's segment
    /// URIs) resolve against it.
    public var location: URL?

    /// Describes a resource.
    public init(
        length: Int64,
        mimeType: String? = nil,
        acceptsRanges: Bool = true,
        entityTag: String? = nil,
        lastModified: String? = nil,
        location: URL? = nil
    ) {
        self.length = length
        self.mimeType = mimeType
        self.acceptsRanges = acceptsRanges
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.location = location
    }

    /// The value to send in `If-Range` so that a changed resource answers with its new version instead of
    /// bytes of it mixed with ours: a strong entity tag, else the modification date. Weak tags cannot be
    /// used there (RFC 9110, 13.1.5).
    public var rangeValidator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }

    /// Whether `other` describes a different version of the same resource. Information that one side
    /// lacks is not evidence of a change; a different length always is.
    public func isDifferentVersion(from other: ContentInfo) -> Bool {
        if length != other.length { return true }
        if let mine = entityTag, let theirs = other.entityTag { return mine != theirs }
        if let mine = lastModified, let theirs = other.lastModified { return mine != theirs }
        return false
    }

    /// This information, with what `answered` (a response for the same version) adds: validators, type and
    /// final URL it lacked, and ranges off if that response showed the origin ignores them.
    func completed(by answered: ContentInfo) -> ContentInfo {
        var merged = self
        merged.acceptsRanges = acceptsRanges && answered.acceptsRanges
        merged.entityTag = entityTag ?? answered.entityTag
        merged.lastModified = lastModified ?? answered.lastModified
        merged.mimeType = mimeType ?? answered.mimeType
        merged.location = location ?? answered.location
        return merged
    }
}
