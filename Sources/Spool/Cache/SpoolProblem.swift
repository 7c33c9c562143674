import Foundation

/// Something the cache noticed and handled on its own, reported through `SpoolConfiguration.onProblem`
/// so an app can log it. Readers never see these: they get correct bytes (from the origin if need be).
public enum SpoolProblem: Sendable, Hashable, CustomStringConvertible {
    /// Writing to the cache failed (a full disk, a file size limit): reads go on from the origin without
    /// caching. Reported once, and again only after writes have worked in between.
    case storageFailed(String)
    /// Stored bytes failed their checksum; they were dropped and are fetched again.
    case corruptData(url: String, range: Range<Int64>)
    /// An entry was stored with another encryption key (or with none, or with one where none is set now);
    /// it was dropped and is fetched again.
    case wrongKey(url: String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .storageFailed(let reason): "cache writes fail (\(reason)); reading from the origin without caching"
        case .corruptData(let url, let range):
            "cached bytes \(range.lowerBound)-\(range.upperBound - 1) of \(url) failed their checksum; fetching them "
                + "again"
        case .wrongKey(let url): "\(url) was cached with another encryption key; fetching it again"
        }
    }
}
