import Foundation

/// The cache keys of recently used URLs. Every read, content lookup and range query names its entry, up to
/// three times per proxy request: the default policy's key (the URL rebuilt without credentials, then a
/// SHA-256) took a tenth of the proxy's CPU under many small range requests when it was computed each time.
final class CacheKeys: Sendable {
    private let policy: CacheKeyPolicy
    /// Longer URLs are keyed each time, so a few huge ones cannot hold much memory.
    private static let longestURL = 4096
    private let keys: RecentValues<URL, String>

    /// Keys of `policy`, remembering up to `capacity` URLs.
    init(policy: CacheKeyPolicy, capacity: Int = 512) {
        self.policy = policy
        keys = RecentValues(capacity: capacity)
    }

    /// `policy.key(for: url)`.
    func key(for url: URL) -> String {
        keys.value(for: url, keep: url.absoluteString.utf8.count <= Self.longestURL) { policy.key(for: url) }
    }
}
