import Foundation

/// When the entry's index record is written, and what it says besides the stored bytes: a value the state
/// owns (`EngineState.record`), so that what makes the record lag behind is decided in one place.
///
/// The record lags when the content information, the stored bytes, the pin or (at most once a second) the last
/// access change. A write waits `minimumFlushInterval` after the last while requests or readers remain; one
/// that claims newly written bytes syncs them first (`needsSync`).
struct RecordSchedule: Sendable {
    /// When the entry was created, and when it was last read or lent from.
    private(set) var created: Date
    private(set) var lastAccess: Date
    private(set) var pinned = false
    /// Whether the record on disk lags behind the state.
    private(set) var lags = false
    /// Whether bytes were written since the last record write: the next one syncs them first. A record that
    /// only moves the last access needs no sync.
    private(set) var needsSync = false
    /// Bytes written since the last record write.
    private(set) var unflushedBytes: Int64 = 0
    /// When the last record write took its snapshot (monotonic seconds).
    private(set) var lastFlush: Double = -.infinity
    /// The last access the record on disk holds.
    private(set) var savedLastAccess: Date = .distantPast
    /// Whether a record write is queued and has not started yet.
    private(set) var flushQueued = false

    init(created: Date) {
        self.created = created
        lastAccess = created
    }

    /// What an existing record said, read when the entry opened.
    mutating func opened(from record: EntryRecord) {
        created = record.created
        pinned = record.pinned
        savedLastAccess = record.lastAccess
    }

    /// Something the record says changed (the content information, the stored bytes).
    mutating func changed() {
        lags = true
    }

    /// `bytes` were written at `now`: the record lags and its next write syncs them. Returns whether a write is
    /// due now: `indexInterval` bytes are unclaimed and the last write is `minimumInterval` old.
    mutating func wrote(_ bytes: Int64, at now: Double, indexInterval: Int64, minimumInterval: Double) -> Bool {
        guard bytes > 0 else { return false }
        unflushedBytes += bytes
        lags = true
        needsSync = true
        return unflushedBytes >= indexInterval && now - lastFlush >= minimumInterval
    }

    /// The entry was used at `now` (a read ended, a slice was lent): least-recently-used eviction goes by it.
    /// The record learns of it at most once a second, without a sync (it claims nothing new): a burst of small
    /// requests costs one record write, not one each. Returns whether the record lags for it.
    mutating func accessed(at now: Date, known: Bool) -> Bool {
        lastAccess = now
        guard known, now.timeIntervalSince(savedLastAccess) >= 1 else { return false }
        lags = true
        return true
    }

    /// Pins or unpins the entry; returns whether that changed anything.
    mutating func setPinned(_ pinned: Bool) -> Bool {
        guard self.pinned != pinned else { return false }
        self.pinned = pinned
        lags = true
        return true
    }

    /// Whether to queue a record write, and in how many seconds, at `now`: none while the record is up to
    /// date or a write is queued, unless nothing runs any more (`settled`): then one comes at once rather than
    /// waiting for the queued one. Records the write as queued.
    mutating func flushWanted(settled: Bool, at now: Double, minimumInterval: Double) -> Double? {
        guard lags, !flushQueued || settled else { return nil }
        flushQueued = true
        return settled ? 0 : max(0, lastFlush + minimumInterval - now)
    }

    /// A queued write starts.
    mutating func flushStarted() {
        flushQueued = false
    }

    /// Takes the record's lag for a write at `now`, if it lags and `known`: the record is up to date from
    /// here on, unless it changes again. Returns whether the write must sync the data first.
    mutating func takeForWrite(at now: Double, known: Bool) -> (needsSync: Bool, lastAccess: Date)? {
        guard known, lags else { return nil }
        defer {
            lags = false
            needsSync = false
            unflushedBytes = 0
            lastFlush = now
            savedLastAccess = lastAccess
        }
        return (needsSync, lastAccess)
    }
}
