import Foundation

/// The cache keys of recently used URLs. Every read, content lookup and range query names its entry, up to
/// three times per proxy request: the default policy's key (the URL rebuilt without credentials, then a
/// SHA-256) took a tenth of the proxy's CPU under many small range requests when it was computed each time.
final class CacheKeys: Sendable {
    private let policy: CacheKeyPolicy
    /// The most URLs kept; past it the memo starts afresh, since a cache serves a few resources at a time
    /// and a miss costs one key.
    private let capacity: Int
    /// Longer URLs are keyed each time, so a few huge ones cannot hold much memory.
    private static let longestURL = 4096
    private let keys = LockedBox([URL: String]())

    /// Keys of `policy`, remembering up to `capacity` URLs.
    init(policy: CacheKeyPolicy, capacity: Int = 512) {
        self.policy = policy
        self.capacity = max(1, capacity)
    }

    /// `policy.key(for: url)`.
    func key(for url: URL) -> String {
        if let known = keys.withLock({ $0[url] }) { return known }
        let key = policy.key(for: url)
        guard url.absoluteString.utf8.count <= Self.longestURL else { return key }
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[url] = key
        }
        return key
    }
}
