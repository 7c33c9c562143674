import Foundation

/// File slices: stored bytes lent to a caller that sends them from the data file (see `FileSlice`), and the
/// leases that make eviction spare their bytes and a new version wait for them (`VersionReset`).
struct SliceLender: Sendable {
    let core: EntryCore

    /// A slice of the longest start of `range` whose blocks this process has checked or written itself; `nil`
    /// when the first block still needs its check (the caller then reads it, which checks it).
    func lend(_ range: Range<Int64>, revoke: @escaping @Sendable () -> Void, in inner: inout EntryInner) throws
        -> FileSlice?
    {
        var upper = range.lowerBound
        for block in BlockLayout.blocks(in: range) {
            guard inner.trusted.contains(block) else { break }
            upper = min(range.upperBound, BlockLayout.range(of: block).upperBound)
        }
        guard upper > range.lowerBound else { return nil }
        let descriptor = try inner.openFile(core.environment, key: core.key).data.duplicateDescriptor()
        let lease = inner.nextLease
        inner.nextLease += 1
        inner.leases[lease] = EntryInner.Lease(range: range.lowerBound..<upper, revoke: revoke)
        return FileSlice(descriptor: descriptor, offset: range.lowerBound, count: Int(upper - range.lowerBound)) {
            [core] in
            SliceLender(core: core).endLease(lease)
        }
    }

    /// A slice of all of `range`, of the version `info` describes, when every byte of it is stored and every
    /// block checked or written by this process, and the data file is open; `nil` otherwise. Nothing blocks:
    /// for a caller answering on the thread its request arrived on. Counts as a use of those blocks;
    /// `recordLags` says the index record should learn of it (`IndexWriter.flushSoon`).
    func lendWhole(
        _ range: Range<Int64>, of info: ContentInfo, at now: Date, revoke: @escaping @Sendable () -> Void
    ) -> (slice: FileSlice, recordLags: Bool)? {
        core.inner.withLock { inner -> (FileSlice, Bool)? in
            guard case .done = inner.opening, inner.file != nil, inner.state.info == info,
                inner.state.stored.contains(range),
                BlockLayout.blocks(in: range).allSatisfy(inner.trusted.contains),
                let slice = try? lend(range, revoke: revoke, in: &inner),
                Int64(slice.count) == range.upperBound - range.lowerBound
            else { return nil }
            for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
            inner.lastAccess = now
            // As for a reader's end: the record learns of uses at most once a second.
            guard now.timeIntervalSince(inner.savedLastAccess) >= 1 else { return (slice, false) }
            inner.dirty = true
            return (slice, true)
        }
    }

    /// Takes back a slice; wakes the writes waiting for the old version's slices once none is out.
    private func endLease(_ lease: Int) {
        let (waiters, idle) = core.inner.withLock { inner -> ([CheckedContinuation<Void, Never>], Bool) in
            guard inner.leases.removeValue(forKey: lease) != nil else { return ([], false) }
            guard inner.leases.isEmpty else { return ([], false) }
            defer { inner.leaseWaiters.removeAll() }
            return (Array(inner.leaseWaiters.values), inner.isIdle)
        }
        for waiter in waiters { waiter.resume() }
        // Slices come back on a server's event loop: this only schedules the close (`OpenEntries`).
        if idle { core.becameIdle() }
    }

    /// Returns once no slice is out, or the task is cancelled.
    func slicesReturned() async {
        let id = core.inner.withLock { inner -> Int in
            defer { inner.nextLease += 1 }
            return inner.nextLease
        }
        await core.suspend(id: id, in: \.leaseWaiters) { $0.leases.isEmpty }
    }
}
