import Foundation

extension SpoolCache {
    /// What this cache directory has served, fetched and evicted, counted by every process that used it: the
    /// counts written so far plus this process's since its last write. Reads a small file, on `BlockingIO`.
    public var statistics: CacheStatistics {
        get async {
            let counter = statisticsCounter
            return (try? await BlockingIO.run { counter.current() }) ?? counter.pending
        }
    }

    /// Writes this process's counts now (they are written every few seconds while reads run, and on
    /// `close()`), so that another process reading `statistics` sees them.
    public func flushStatistics() async {
        _ = try? await BlockingIO.run { [statisticsCounter] in statisticsCounter.flush() }
    }
}
