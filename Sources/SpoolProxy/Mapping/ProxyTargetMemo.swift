import Foundation
import Spool

/// The origin URLs of recent request targets: a player sends many range requests for one file, and its path
/// is mapped once rather than for each. Decoding the base64url path, parsing and validating the URL and
/// naming it for the log took a fifth of the proxy's CPU under many small range requests.
final class ProxyTargetMemo: Sendable {
    /// What a request target stands for.
    struct Mapping: Sendable {
        /// The origin URL.
        let origin: URL
        /// The origin URL without credentials, as logs show it; for an HLS key only its host.
        let displayURL: String
    }

    /// Longer targets are mapped each time: a hostile client could otherwise fill memory with them.
    private static let longestTarget = 4096
    private let mappings: RecentValues<String, Mapping>
    /// Checks each target's proof.
    private let signer: URLSigner

    /// A memo of up to `capacity` targets, whose proofs `signer` checks.
    init(signer: URLSigner, capacity: Int = 256) {
        self.signer = signer
        mappings = RecentValues(capacity: capacity)
    }

    /// The mapping of `target` (see `ProxyURLMapping.originURL(forRequestTarget:signer:)`, whose errors it
    /// throws; a target that fails, a forged one included, is never kept).
    func mapping(of target: String) throws -> Mapping {
        try mappings.value(for: target, keep: target.utf8.count <= Self.longestTarget) {
            let origin = try ProxyURLMapping.originURL(forRequestTarget: target, signer: signer)
            let display =
                ProxyURLMapping.namesKey(target)
                ? "(HLS key on \(origin.host ?? "?"))" : CacheKeyPolicy.displayURL(for: origin)
            return Mapping(origin: origin, displayURL: display)
        }
    }
}
