import Foundation

/// What a cache has served and fetched, counted across processes and restarts since `since`: the figures
/// an app reports to judge its cache (hit ratio, traffic saved, churn).
///
/// Bytes are *served* when a playback read (a player's, the proxy's) delivers them; reads ahead of playback
/// (prefetch, preloading, pinning) serve nothing, though what they fetch counts in `bytesFetched`.
public struct CacheStatistics: Sendable, Equatable, Codable {
    /// Bytes served that were on disk when the read reached them.
    public var bytesServedFromCache: Int64
    /// Bytes served that the read had to wait for from the origin.
    public var bytesServedFromOrigin: Int64
    /// Bytes received from origins, for any read.
    public var bytesFetched: Int64
    /// Bytes removed to keep the cache within its limits (whole entries, and blocks of entries being read).
    public var bytesEvicted: Int64
    /// When counting started: the first time a cache in this directory counted anything.
    public var since: Date

    /// Statistics with every count at zero, counted from `since`.
    package init(since: Date) {
        self.init(bytesServedFromCache: 0, bytesServedFromOrigin: 0, bytesFetched: 0, bytesEvicted: 0, since: since)
    }

    /// Statistics with these counts.
    package init(
        bytesServedFromCache: Int64, bytesServedFromOrigin: Int64, bytesFetched: Int64, bytesEvicted: Int64,
        since: Date
    ) {
        self.bytesServedFromCache = bytesServedFromCache
        self.bytesServedFromOrigin = bytesServedFromOrigin
        self.bytesFetched = bytesFetched
        self.bytesEvicted = bytesEvicted
        self.since = since
    }

    /// Every byte served.
    public var bytesServed: Int64 { bytesServedFromCache + bytesServedFromOrigin }

    /// The share of served bytes that came from disk, 0 to 1; `nil` before anything was served.
    public var hitRatio: Double? {
        bytesServed > 0 ? Double(bytesServedFromCache) / Double(bytesServed) : nil
    }

    private enum CodingKeys: String, CodingKey {
        case bytesServedFromCache, bytesServedFromOrigin, bytesFetched, bytesEvicted, since, hitRatio
    }

    /// Decodes the counts; the hit ratio is derived from them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            bytesServedFromCache: try container.decode(Int64.self, forKey: .bytesServedFromCache),
            bytesServedFromOrigin: try container.decode(Int64.self, forKey: .bytesServedFromOrigin),
            bytesFetched: try container.decode(Int64.self, forKey: .bytesFetched),
            bytesEvicted: try container.decode(Int64.self, forKey: .bytesEvicted),
            since: try container.decode(Date.self, forKey: .since))
    }

    /// Encodes the counts and, for a reader of the JSON, the hit ratio (`null` before anything was served).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(bytesServedFromCache, forKey: .bytesServedFromCache)
        try container.encode(bytesServedFromOrigin, forKey: .bytesServedFromOrigin)
        try container.encode(bytesFetched, forKey: .bytesFetched)
        try container.encode(bytesEvicted, forKey: .bytesEvicted)
        try container.encode(since, forKey: .since)
        try container.encode(hitRatio, forKey: .hitRatio)
    }

    /// These counts plus `other`'s, from the earlier of the two starts.
    func adding(_ other: CacheStatistics) -> CacheStatistics {
        CacheStatistics(
            bytesServedFromCache: bytesServedFromCache + other.bytesServedFromCache,
            bytesServedFromOrigin: bytesServedFromOrigin + other.bytesServedFromOrigin,
            bytesFetched: bytesFetched + other.bytesFetched, bytesEvicted: bytesEvicted + other.bytesEvicted,
            since: min(since, other.since))
    }

    /// Whether every count is zero.
    var isZero: Bool {
        bytesServedFromCache == 0 && bytesServedFromOrigin == 0 && bytesFetched == 0 && bytesEvicted == 0
    }
}
