import Foundation

/// The index record's schedule (`RecordSchedule`), changed only through these events.
extension EngineState {
    /// The shortest time between two record writes while requests or readers remain. A write must first
    /// sync every byte it claims, so its cost is the disk's time to write back what arrived since the last
    /// one, and while that write-back ran the download's own writes slowed: reading 256 MiB cold through the
    /// proxy went at 280–370 MB/s with a write every 0.25 s and at 500–580 MB/s with one every 2 s (nginx's
    /// slice proxy, which never syncs, 480–630 in the same runs). What it bounds is what a power cut costs
    /// (bytes not yet claimed are fetched again, never served wrong) and how late another process sees the
    /// bytes.
    static let minimumRecordInterval: Double = 2

    /// What the record on disk said when the entry opened.
    mutating func recordOpened(_ saved: EntryRecord) {
        record.opened(from: saved)
    }

    /// `bytes` were written at `now`; a record write is queued when one is due (see `RecordSchedule.wrote`).
    mutating func wrote(_ bytes: Int64, at now: Double) {
        let due = record.wrote(
            bytes, at: now, indexInterval: policy.indexInterval, minimumInterval: Self.minimumRecordInterval)
        if due { emit(.flushRecordSoon) }
    }

    /// The entry was used at `now`; returns whether the record lags for it.
    @discardableResult
    mutating func accessed(at now: Date) -> Bool {
        record.accessed(at: now, known: info != nil)
    }

    /// Pins or unpins the entry; returns whether that changed anything.
    mutating func setPinned(_ pinned: Bool) -> Bool {
        record.setPinned(pinned)
    }

    /// Whether to queue a record write at `now`, and in how many seconds; `settled` when no request and no
    /// reader remains (see `RecordSchedule.flushWanted`).
    mutating func recordWriteWanted(settled: Bool, at now: Double) -> Double? {
        record.flushWanted(settled: settled, at: now, minimumInterval: Self.minimumRecordInterval)
    }

    /// A queued record write starts.
    mutating func recordWriteStarted() {
        record.flushStarted()
    }

    /// Takes the record's lag for a write at `now`; `nil` when it is up to date or the resource unknown.
    mutating func takeRecordForWrite(at now: Double) -> (needsSync: Bool, lastAccess: Date)? {
        record.takeForWrite(at: now, known: info != nil)
    }
}
