import Foundation

/// Keeps a cache within its `CacheLimits`: removes entries not read for longer than the age limit, then
/// least recently used entries while the cache is over its size, and, when only entries being read are
/// left, their least recently used blocks. Pinned entries are never touched; an entry in use by this or
/// another process is never removed whole.
final class Evictor: Sendable {
    private let limits: CacheLimits
    private let store: DiskStore
    private let clock: any SpoolClock
    /// Where eviction runs, one pass at a time, off every lock: it removes files and writes index records.
    let queue = BlockingIO.serialQueue(label: "Spool.Evictor")
    /// Bytes written since the last check; a check runs every `checkInterval` bytes.
    private let written = LockedBox<Int64>(0)
    private static let checkInterval: Int64 = 256 * 1024
    /// What the index says of entries no engine has open, read once and kept up to date by this process;
    /// read again after `refreshInterval` to learn of other processes' entries.
    private let summaries = LockedBox<(entries: [String: Summary], read: Date)?>(nil)
    private static let refreshInterval: TimeInterval = 30

    struct Summary {
        var bytes: Int64
        var lastAccess: Date
        var pinned: Bool
    }

    init(limits: CacheLimits, store: DiskStore, clock: any SpoolClock) {
        self.limits = limits
        self.store = store
        self.clock = clock
    }

    var isActive: Bool { limits.maxBytes != nil || limits.maxAge != nil }

    /// Counts new bytes; returns whether a check is due.
    func noteWritten(_ bytes: Int64) -> Bool {
        guard isActive else { return false }
        return written.withLock { total in
            total += bytes
            guard total >= Self.checkInterval || limits.maxBytes.map({ $0 < Self.checkInterval * 4 }) == true else {
                return false
            }
            total = 0
            return true
        }
    }

    /// Learns what an engine left in the index when it closed.
    func noteClosed(key: String, record: EntryRecord?) {
        summaries.withLock { known in
            guard known != nil else { return }
            if let record {
                known!.entries[key] = Summary(
                    bytes: record.ranges.byteCount, lastAccess: record.lastAccess, pinned: record.pinned)
            } else {
                known!.entries[key] = nil
            }
        }
    }

    private func knownEntries(now: Date) -> [String: Summary] {
        if let known = summaries.withLock({ $0 }), now.timeIntervalSince(known.read) < Self.refreshInterval,
            now >= known.read
        {
            return known.entries
        }
        var entries: [String: Summary] = [:]
        for (key, record) in store.summaries() {
            entries[key] = Summary(bytes: record.ranges.byteCount, lastAccess: record.lastAccess, pinned: record.pinned)
        }
        summaries.withLock { $0 = (entries, now) }
        return entries
    }

    /// Brings the cache within its limits; on `queue` only. `active` are the engines open and in use in this
    /// process, `idle` what the engines kept open though unused hold (they count as closed, and their records
    /// may lag behind), `incoming` bytes about to be written; `remove` deletes an idle entry unless it is in
    /// use (returns whether it did). Returns the bytes removed.
    @discardableResult
    func enforce(
        active: [String: ResourceEngine], idle idleEngines: [String: Summary], incoming: Int64,
        remove removeEntry: (String) -> Bool
    ) -> Int64 {
        guard isActive else { return 0 }
        var evicted: Int64 = 0
        func remove(_ key: String) -> Bool {
            guard removeEntry(key) else { return false }
            noteClosed(key: key, record: nil)
            return true
        }
        let now = clock.date
        var idle: [(key: String, bytes: Int64, lastAccess: Date, pinned: Bool)] = []
        var total = incoming
        let known = knownEntries(now: now).merging(idleEngines) { _, open in open }
        for (key, summary) in known where active[key] == nil {
            idle.append((key, summary.bytes, summary.lastAccess, summary.pinned))
            total += summary.bytes
        }
        for engine in active.values { total += engine.storedRanges?.byteCount ?? 0 }

        if let maxAge = limits.maxAge {
            for entry in idle where !entry.pinned && now.timeIntervalSince(entry.lastAccess) > maxAge {
                if remove(entry.key) {
                    total -= entry.bytes
                    evicted += entry.bytes
                }
            }
            idle.removeAll { !$0.pinned && now.timeIntervalSince($0.lastAccess) > maxAge }
        }
        guard let maxBytes = limits.maxBytes, total > maxBytes else { return evicted }
        for entry in idle.filter({ !$0.pinned }).sorted(by: { $0.lastAccess < $1.lastAccess }) {
            guard total > maxBytes else { return evicted }
            if remove(entry.key) {
                total -= entry.bytes
                evicted += entry.bytes
            }
        }
        // Only entries being read are left over the limit: they give up their least recently used blocks,
        // never the ones their readers are about to read.
        for engine in active.values where engine.summary?.pinned == false {
            guard total > maxBytes else { return evicted }
            let shed = engine.shed(total - maxBytes)
            total -= shed
            evicted += shed
        }
        return evicted
    }
}
