import Foundation

/// Counts what a cache serves, fetches and evicts, and adds the counts to the cache directory's
/// `statistics.json` now and then, so they add up across processes and restarts.
///
/// Counting is a lock and four additions, on whatever thread serves the bytes. The file is read and written
/// only by `flush()` and `stored()`, which block: the cache calls them through `BlockingIO`, or on `close()`.
/// Processes add their counts under an exclusive `flock` of `statistics.lock`; the file itself is replaced
/// atomically (write, then rename), so a crash loses at most the counts since the last flush.
final class StatisticsCounter: Sendable {
    private struct State {
        var pending: CacheStatistics
        var lastFlush: Date
        /// Keys whose served bytes are remembered, and how many watchers each has (see `watch`).
        var watched: [String: (watchers: Int, served: ByteRangeSet)] = [:]
    }

    /// Counts are written at most this often while the cache is in use.
    static let flushInterval: TimeInterval = 10

    private let file: URL
    private let lockFile: URL
    private let clock: any SpoolClock
    private let state: LockedBox<State>

    init(directory: URL, clock: any SpoolClock) {
        file = directory.appendingPathComponent("statistics.json")
        lockFile = directory.appendingPathComponent("statistics.lock")
        self.clock = clock
        let now = clock.date
        state = LockedBox(State(pending: CacheStatistics(since: now), lastFlush: now))
    }

    /// The bytes of `range` of `key` were served, `fromCache` of them from disk and the rest from the origin.
    func served(key: String, range: Range<Int64>, fromCache: Int64) {
        let count = range.upperBound - range.lowerBound
        state.withLock { state in
            state.pending.bytesServedFromCache += fromCache
            state.pending.bytesServedFromOrigin += count - fromCache
            if !state.watched.isEmpty, state.watched[key] != nil { state.watched[key]!.served.insert(range) }
        }
    }

    /// `count` bytes arrived from an origin.
    func fetched(_ count: Int) {
        state.withLock { $0.pending.bytesFetched += Int64(count) }
    }

    /// `count` bytes were evicted.
    func evicted(_ count: Int64) {
        guard count > 0 else { return }
        state.withLock { $0.pending.bytesEvicted += count }
    }

    /// Starts remembering which bytes of `key` are served (for a preloader that tells preloaded bytes played
    /// from wasted ones); each `watch` is ended by one `unwatch`.
    func watch(key: String) {
        state.withLock { state in
            state.watched[key, default: (0, ByteRangeSet())].watchers += 1
        }
    }

    /// The bytes of `key` served since `watch`.
    func servedRanges(key: String) -> ByteRangeSet {
        state.withLock { $0.watched[key]?.served ?? ByteRangeSet() }
    }

    /// Ends one `watch` of `key`.
    func unwatch(key: String) {
        state.withLock { state in
            guard let entry = state.watched[key] else { return }
            state.watched[key] = entry.watchers > 1 ? (entry.watchers - 1, entry.served) : nil
        }
    }

    /// This process's counts since its last write, without the file's.
    var pending: CacheStatistics {
        state.withLock { $0.pending }
    }

    /// The counts of every process so far: the file's, plus this process's not yet written. Blocks.
    func current() -> CacheStatistics {
        let pending = state.withLock { $0.pending }
        guard let stored = readStored() else { return pending }
        return stored.adding(pending)
    }

    /// Whether a flush is due: counts are pending and the last flush is `flushInterval` old.
    func isFlushDue() -> Bool {
        let now = clock.date
        return state.withLock { state in
            !state.pending.isZero && abs(now.timeIntervalSince(state.lastFlush)) >= Self.flushInterval
        }
    }

    /// Adds the pending counts to the file. Blocks. On failure (a full disk) the counts stay pending.
    func flush() {
        let now = clock.date
        let pending = state.withLock { state -> CacheStatistics in
            let taken = state.pending
            state.pending = CacheStatistics(since: now)
            state.lastFlush = now
            return taken
        }
        guard !pending.isZero else { return }
        do {
            let lock = try EntryFile(url: lockFile)
            defer { lock.close() }
            _ = lock.lock(exclusive: true)
            let total = readStored().map { $0.adding(pending) } ?? pending
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .millisecondsSince1970
            encoder.outputFormatting = [.sortedKeys]
            // Not synced: a crash costs the counts since the last flush, never the cache.
            try FileReplacement.replace(file, with: try encoder.encode(total), durable: false)
        } catch {
            state.withLock { state in state.pending = state.pending.adding(pending) }
        }
    }

    /// The file's counts; `nil` when there is none or it cannot be decoded (then counting starts anew: a
    /// damaged statistics file costs the counts, never the cache).
    private func readStored() -> CacheStatistics? {
        BlockingIO.willBlock("reading statistics.json")
        guard let data = try? Data(contentsOf: file) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try? decoder.decode(CacheStatistics.self, from: data)
    }
}
