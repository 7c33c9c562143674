import Foundation

/// The entry's index record: writes it (in the background during downloads) and adopts what another process
/// stored in the same entry.
///
/// Every record write of the entry runs on its serial `queue` (on `BlockingIO`), one at a time and off every
/// lock: a sync can take a disk's write time for all the bytes written since the last one.
struct IndexWriter: Sendable {
    let context: EntryContext
    /// Where this entry's record writes run, one at a time.
    let queue = BlockingIO.serialQueue(label: "Spool.IndexWriter")

    /// Queues a flush when the state wants one (`EngineState.recordWriteWanted`): a download must not stop
    /// for a sync. While readers or requests remain it comes at least `EngineState.minimumRecordInterval` after
    /// the last one: a sequential read ends an origin request every few MB, and a flush (two syncs) for each
    /// took a fifth of a cold read's CPU time through the proxy. Once none remains it comes at once, so another
    /// process soon finds what was stored.
    func flushSoon() {
        let now = context.environment.clock.uptime
        let delay = context.locked.withLock { entry -> TimeInterval? in
            entry.state.recordWriteWanted(settled: entry.tasks.isEmpty && entry.state.readers.isEmpty, at: now)
        }
        guard let delay else { return }
        let work: @Sendable () -> Void = {
            context.locked.withLock { $0.state.recordWriteStarted() }
            flushNow()
        }
        let clock = context.environment.clock
        if delay > 0 { clock.schedule(at: clock.uptime + delay, on: queue, work) } else { queue.async(execute: work) }
    }

    /// Brings the index record up to date with what is on disk, and returns once it is.
    func flush() async {
        _ = try? await BlockingIO.run(on: queue) { flushNow() }
    }

    /// `flush`, blocking the caller: for synchronous API and for a cache dropped without `close()`.
    func flushBlocking() {
        BlockingIO.sync(on: queue) { flushNow() }
    }

    /// Runs `work` on the record queue, after every flush queued before it: for a version change's record.
    func serially<T>(_ work: () throws -> T) rethrows -> T {
        try BlockingIO.sync(on: queue, work)
    }

    /// The record write itself, on `queue`.
    private func flushNow() {
        // The claims are taken first, with the edge checksums of that moment, then the bytes they name are
        // synced, then the record is saved: it never claims a byte that is not on disk, and bytes written
        // after it was taken never change what it vouches for.
        let now = context.environment.clock.uptime
        let taken = context.locked.withLock { entry -> (EntryRecord, BlockFile?, ByteRangeSet, Int)? in
            guard let info = entry.state.info, let (needsSync, lastAccess) = entry.state.takeRecordForWrite(at: now)
            else { return nil }
            let record = EntryRecord(
                url: context.displayURL, info: info, ranges: entry.state.stored, created: entry.state.record.created,
                lastAccess: lastAccess, pinned: entry.state.record.pinned, keyCheck: context.environment.codec.keyCheck,
                edgeSums: entry.state.checks.edgeSums)
            return (record, needsSync ? entry.file : nil, entry.state.checks.distrusted, entry.state.versionNumber)
        }
        guard let (snapshot, syncing, distrusted, versionNumber) = taken else { return }
        var record = snapshot
        syncing?.synchronize()
        let file = context.locked.withLock { $0.file }
        // The entry was removed while open (`spool clear` in another process): a record now would claim bytes
        // of a file that is gone (the engine is taken out of use, `OpenEntries.acquire`).
        if let file, file.data.isRemoved { return }
        // Other processes may fill the same entry: under a lock they respect, their claims are merged in
        // rather than overwritten.
        file?.lockRecord()
        defer { file?.unlockRecord() }
        let other = context.store.record(key: context.key)
        if let theirs = other, theirs.keyCheck == record.keyCheck, !theirs.info.isDifferentVersion(from: record.info) {
            // Bytes this engine dropped (damaged, evicted) stay dropped even if the record still names them.
            let merged = EntryClaims(ranges: record.ranges, edges: record.edgeSums).merged(
                with: EntryClaims(ranges: theirs.ranges, edges: theirs.edgeSums), excluding: distrusted,
                length: record.info.length)
            record.ranges = merged.ranges
            record.edgeSums = merged.edges
            record.lastAccess = max(record.lastAccess, theirs.lastAccess)
            record.created = min(record.created, theirs.created)
        }
        // A new version may have come meanwhile; its record (written on this queue too) must stay.
        guard context.locked.withLock({ $0.state.versionNumber == versionNumber && $0.state.info == record.info })
        else {
            return
        }
        // Only a record that claims newly written bytes needs to survive a crash; one that moves the last
        // access or names the version may be lost, the record before it claims nothing untrue.
        try? context.store.save(record, key: context.key, durable: syncing != nil)
        let stamp = context.store.recordStamp(key: context.key)
        context.locked.withLock { $0.recordStamp = stamp }
        // What the other process stored is taken in here too, not only before a read's requests: a read sends
        // one request for all it lacks, which would otherwise never look again. Taken in before this engine
        // writes into a block the other one began, their parts join into a complete block; after, a partial
        // block's two parts have no checksum that covers both, and the merge keeps only one.
        if let theirs = other, theirs.keyCheck == record.keyCheck, adopt(theirs) { context.notifyReaders() }
    }

    /// Takes in the bytes another process's record `theirs` claims that this engine lacks (see
    /// `EngineState.otherRecordRead`), under the entry's lock; returns whether there were any. `stamp`, the
    /// record's as read, is kept as seen once the record was taken in or brought nothing new.
    private func adopt(_ theirs: EntryRecord, stamp: [Int64]? = nil) -> Bool {
        context.locked.withLock { entry -> Bool in
            let outcome = entry.state.otherRecordRead(
                EntryClaims(ranges: theirs.ranges, edges: theirs.edgeSums), of: theirs.info)
            if outcome != .later, let stamp { entry.recordStamp = stamp }
            guard outcome == .adopted else { return false }
            entry.readerWakeups &+= 1
            return true
        }
    }

    /// Takes in the bytes another process stored since this engine last looked, if they are of the same
    /// version and not found damaged here; returns whether there were any. Reads the record off the lock.
    func adoptStoredElsewhere() -> Bool {
        // Unchanged since this engine read or wrote it: nothing new, and no need to read it.
        let stamp = context.store.recordStamp(key: context.key)
        guard context.locked.withLock({ stamp != $0.recordStamp && !$0.state.isResetting }),
            let theirs = context.store.record(key: context.key), theirs.keyCheck == context.environment.codec.keyCheck
        else { return false }
        return adopt(theirs, stamp: stamp)
    }
}
