import Foundation

/// The entry's index record: writing it (in the background during downloads), adopting what another process
/// stored, shedding blocks for eviction and dropping a version that changed.
extension ResourceEngine {
    /// Queues `flush()` on a background queue, unless one is queued already: a sync can take a disk's
    /// write time for all the bytes written since the last one, and a download must not stop for it.
    /// `close()` and `settle()` flush in place, so nothing stays unwritten when the cache closes.
    func flushSoon() {
        let queue = inner.withLock { inner -> Bool in
            guard inner.dirty, !inner.flushQueued else { return false }
            inner.flushQueued = true
            return true
        }
        guard queue else { return }
        Self.flushQueue.async {
            self.inner.withLock { $0.flushQueued = false }
            self.flush()
        }
    }

    /// The shortest time between two flushes a download asks for.
    static let minimumFlushInterval: TimeInterval = 0.25

    /// Where background flushes run: one at a time for the whole process, off the cooperative thread pool,
    /// which blocking syncs would starve.
    private static let flushQueue = DispatchQueue(label: "Spool.ResourceEngine.flush", qos: .utility)

    /// Brings the index record up to date with what is on disk: data synced first, then the record replaced.
    func flush() {
        flushing.withLock { _ in flushNow() }
    }

    /// `flush`, with the entry's flush lock held.
    private func flushNow() {
        // The claims are taken first, with the edge checksums of that moment, then the bytes they name are
        // synced, then the record is saved: it never claims a byte that is not on disk, and bytes written
        // after it was taken never change what it vouches for.
        let snapshot = inner.withLock { inner -> (EntryRecord, BlockFile?, ByteRangeSet)? in
            guard let info = inner.state.info, inner.dirty else { return nil }
            inner.dirty = false
            inner.unflushedBytes = 0
            inner.lastFlush = ProcessInfo.processInfo.systemUptime
            inner.savedLastAccess = inner.lastAccess
            let record = EntryRecord(
                url: CacheKeyPolicy.displayURL(for: url), info: info, ranges: inner.state.stored,
                created: inner.created, lastAccess: inner.lastAccess, pinned: inner.pinned,
                keyCheck: environment.codec.keyCheck, edgeSums: inner.edgeSums)
            let needsSync = inner.unsynced
            inner.unsynced = false
            return (record, needsSync ? inner.file : nil, inner.distrusted)
        }
        guard let (taken, syncing, distrusted) = snapshot else { return }
        var record = taken
        syncing?.synchronize()
        let file = inner.withLock { $0.file }
        // Other processes may fill the same entry: under a lock they respect, their claims are merged in
        // rather than overwritten.
        file?.lockRecord()
        defer { file?.unlockRecord() }
        if let theirs = store.record(key: key), theirs.keyCheck == record.keyCheck,
            !theirs.info.isDifferentVersion(from: record.info)
        {
            // Bytes this engine dropped (damaged, evicted) stay dropped even if the record still names them.
            var offered = theirs.ranges
            for range in distrusted.ranges { offered.remove(range) }
            let merged = EntryClaims(ranges: record.ranges, edges: record.edgeSums)
                .merged(with: EntryClaims(ranges: offered, edges: theirs.edgeSums), length: record.info.length)
            record.ranges = merged.ranges
            record.edgeSums = merged.edges
            record.lastAccess = max(record.lastAccess, theirs.lastAccess)
            record.created = min(record.created, theirs.created)
        }
        // A new version may have replaced this one meanwhile; its empty record must stay.
        guard inner.withLock({ $0.state.info == record.info }) else { return }
        // Only a record that claims newly written bytes needs to survive a crash; one that moves the last
        // access or names the version may be lost, the record before it claims nothing untrue.
        try? store.save(record, key: key, durable: syncing != nil)
        let stamp = store.recordStamp(key: key)
        inner.withLock { $0.recordStamp = stamp }
    }

    /// Adds the bytes another process stored since this engine last looked, if they are of the same
    /// version and not found damaged here; returns whether there were any.
    func adoptStoredElsewhere(_ inner: inout Inner) -> Bool {
        // Unchanged since this engine read or wrote it: nothing new, and no need to read it.
        let stamp = store.recordStamp(key: key)
        // Before the file is emptied for a new version, its bytes are the old version's whatever a record says.
        guard stamp != inner.recordStamp, !inner.truncatePending else { return false }
        inner.recordStamp = stamp
        guard let info = inner.state.info, let theirs = store.record(key: key),
            theirs.keyCheck == environment.codec.keyCheck, !theirs.info.isDifferentVersion(from: info)
        else { return false }
        var offered = theirs.ranges
        for range in inner.distrusted.ranges { offered.remove(range) }
        let merged = EntryClaims(ranges: inner.state.stored, edges: inner.edgeSums)
            .merged(with: EntryClaims(ranges: offered, edges: theirs.edgeSums), length: info.length)
        guard merged.ranges != inner.state.stored else { return false }
        // Merging only adds (a side's bytes are replaced only by a side that holds them all). Bytes this
        // process has not checked make their blocks unchecked again.
        var added = merged.ranges
        for range in inner.state.stored.ranges { added.remove(range) }
        for range in added.ranges {
            for block in BlockLayout.blocks(in: range) { inner.trusted.remove(block) }
        }
        inner.revisions &+= 1
        inner.state.gained(added)
        inner.edgeSums = merged.edges
        inner.hashers.removeAll()
        return true
    }

    /// Gives up at least `bytes` of stored blocks if it can, least recently used first, sparing what readers
    /// are about to read (up to a largest piece ahead of each) and what requests are filling. Returns the
    /// bytes given up.
    func shed(_ bytes: Int64) -> Int64 {
        let freed = inner.withLock { inner -> Int64 in
            guard !inner.pinned else { return 0 }
            let chosen = inner.state.blocksToShed(
                bytes: bytes, readers: Array(inner.readerPositions.values), lastUse: inner.blockUse,
                held: inner.leases.values.map(\.range))
            var freed: Int64 = 0
            for present in chosen {
                freed += present.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
                forget(present, in: &inner)
                for range in present {
                    for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = nil }
                }
            }
            return freed
        }
        if freed > 0 {
            flush()
            notifyReaders()
        }
        return freed
    }

    /// Drops every stored byte and the index record, for `spool rm` on a resource in use.
    func removeAll() {
        let cancelled = inner.withLock { inner in
            let ids = inner.state.dropVersion()
            try? persistEmptyVersion(&inner)
            return ids.compactMap { inner.tasks[$0] }
        }
        for task in cancelled { task.cancel() }
        notifyReaders()
    }

    /// After a version change: the record stops claiming old bytes before the file loses them or new ones
    /// are written over them, so no crash can leave a record that vouches for mixed bytes.
    func persistEmptyVersion(_ inner: inout Inner) throws {
        if let info = inner.state.info {
            let record = EntryRecord(
                url: CacheKeyPolicy.displayURL(for: url), info: info, ranges: ByteRangeSet(),
                created: inner.created, lastAccess: inner.lastAccess, pinned: inner.pinned,
                keyCheck: environment.codec.keyCheck)
            try store.save(record, key: key)
        } else {
            // Slices still out keep reading the removed file; the new one starts empty.
            store.remove(key: key)
            inner.file?.close()
            inner.file = nil
            inner.truncatePending = false
        }
        inner.revisions &+= 1
        inner.blockUse.removeAll()
        inner.edgeSums.removeAll()
        inner.trusted.removeAll()
        inner.hashers.removeAll()
        inner.distrusted = ByteRangeSet()
        if inner.file == nil {
            _ = try inner.openFile(environment, key: key)
        } else {
            try emptyFileForNewVersion(&inner)
        }
    }

    /// Stops claiming `ranges` (damaged or evicted): their blocks' slots are cleared, readers that need
    /// them fetch them again.
    func forget(_ ranges: [Range<Int64>], in inner: inout Inner) {
        inner.revisions &+= 1
        for range in ranges where !range.isEmpty {
            for block in BlockLayout.blocks(in: range) {
                inner.edgeSums[block] = nil
                inner.trusted.remove(block)
                inner.hashers[block] = nil
            }
            inner.state.lost([range])
            try? inner.file?.discard(range)
            inner.distrusted.insert(range)
        }
        inner.dirty = true
        inner.changes &+= 1
    }
}
