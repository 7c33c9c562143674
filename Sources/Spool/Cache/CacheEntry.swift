import Foundation

/// A cached resource, as listings show it.
public struct CacheEntry: Sendable, Hashable {
    /// The cache key.
    public var key: String
    /// The URL without credentials.
    public var url: String
    /// The cached version's content information.
    public var info: ContentInfo
    /// The bytes on disk.
    public var cachedRanges: ByteRangeSet
    /// When the entry was created.
    public var created: Date
    /// When it was last read or written.
    public var lastAccess: Date
    /// Whether it is pinned for offline use: exempt from eviction, downloaded whole by `pin`.
    public var isPinned: Bool

    /// The number of bytes on disk.
    public var cachedBytes: Int64 { cachedRanges.byteCount }

    /// The share of the resource that is cached, from 0 to 1.
    public var fractionCached: Double {
        info.length == 0 ? 1 : Double(cachedBytes) / Double(info.length)
    }
}
