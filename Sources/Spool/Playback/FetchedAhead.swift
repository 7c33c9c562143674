import Foundation

/// The bytes this process fetched ahead of playback, by resource and by why (a preload or prefetch, a
/// download or pin), so that a playback report can tell which of the bytes a player took from disk a preload
/// or a download put there. Kept in memory for the resources used last: past `capacity` resources it starts
/// afresh, as `RecentValues` does (a report then counts those bytes as plain cache hits).
package final class FetchedAhead: Sendable {
    private struct Fetched {
        var preloaded = ByteRangeSet()
        var downloaded = ByteRangeSet()
    }

    private let capacity: Int
    private let fetched = LockedBox([String: Fetched]())

    /// A ledger of up to `capacity` resources.
    package init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// The bytes of `range` of the resource with cache key `key` were fetched for `purpose`.
    package func fetched(key: String, range: Range<Int64>, purpose: TransferPurpose) {
        guard !range.isEmpty else { return }
        fetched.withLock { fetched in
            if fetched[key] == nil, fetched.count >= capacity { fetched.removeAll(keepingCapacity: true) }
            switch purpose {
            case .download: fetched[key, default: Fetched()].downloaded.insert(range)
            case .readAhead, .prefetch, .preload: fetched[key, default: Fetched()].preloaded.insert(range)
            }
        }
    }

    /// How many bytes of `range` of `key` a preload (or prefetch) and a download fetched.
    package func overlap(key: String, range: Range<Int64>) -> (preloaded: Int64, downloaded: Int64) {
        guard let entry = fetched.withLock({ $0[key] }) else { return (0, 0) }
        func count(_ set: ByteRangeSet) -> Int64 {
            set.intersection(range).reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
        }
        return (count(entry.preloaded), count(entry.downloaded))
    }
}
