import Foundation
import NIOConcurrencyHelpers
import Spool

/// The origin URLs of recent request targets: a player sends many range requests for one file, and its path
/// is mapped once rather than for each. Decoding the base64url path, parsing and validating the URL and
/// naming it for the log took a fifth of the proxy's CPU under many small range requests.
final class ProxyTargetMemo: Sendable {
    /// What a request target stands for.
    struct Mapping: Sendable {
        /// The origin URL.
        let origin: URL
        /// The origin URL without credentials, as logs show it.
        let displayURL: String
    }

    /// The most targets kept; past it the memo starts afresh, since a proxy serves a few files at a time
    /// and a miss costs one mapping.
    private let capacity: Int
    /// Longer targets are mapped each time: a hostile client could otherwise fill memory with them.
    private static let longestTarget = 4096
    private let mappings = NIOLockedValueBox([String: Mapping]())

    /// A memo of up to `capacity` targets.
    init(capacity: Int = 256) {
        self.capacity = max(1, capacity)
    }

    /// The mapping of `target` (see `ProxyURLMapping.originURL(forRequestTarget:)`, whose errors it throws;
    /// a target that fails is never kept).
    func mapping(of target: String) throws -> Mapping {
        if let known = mappings.withLockedValue({ $0[target] }) { return known }
        let origin = try ProxyURLMapping.originURL(forRequestTarget: target)
        let mapping = Mapping(origin: origin, displayURL: CacheKeyPolicy.displayURL(for: origin))
        guard target.utf8.count <= Self.longestTarget else { return mapping }
        mappings.withLockedValue { mappings in
            if mappings.count >= capacity { mappings.removeAll(keepingCapacity: true) }
            mappings[target] = mapping
        }
        return mapping
    }
}
