import Foundation

/// File slices: stored bytes lent to a caller that sends them from the data file (see `FileSlice`), and the
/// leases that make eviction spare their bytes and a new version wait for them (`VersionReset`).
struct SliceLender: Sendable {
    let core: EntryCore

    /// A slice whose lease is registered, so its bytes stay where they are, but whose descriptor is not made
    /// yet: `complete` makes it off the lock (a `dup` is a system call, and under 100 connections the entry's
    /// lock was the one the event loops waited for).
    struct Reserved: Sendable {
        fileprivate let lease: Int
        fileprivate let file: EntryFile
        /// The bytes the slice will hold.
        let range: Range<Int64>
        /// Those of them no reader had received before (`EntryInner.fresh`).
        let fresh: ByteRangeSet
    }

    /// Reserves a slice of the longest start of `range` whose blocks this process has checked or written
    /// itself; `nil` when the first block still needs its check (the caller then reads it, which checks it).
    func reserve(_ range: Range<Int64>, revoke: @escaping @Sendable () -> Void, in inner: inout EntryInner) throws
        -> Reserved?
    {
        var upper = range.lowerBound
        for block in BlockLayout.blocks(in: range) {
            guard inner.trusted.contains(block) else { break }
            upper = min(range.upperBound, BlockLayout.range(of: block).upperBound)
        }
        guard upper > range.lowerBound else { return nil }
        let file = try inner.openFile(core.environment, key: core.key).data
        let lease = inner.nextLease
        inner.nextLease += 1
        inner.leases[lease] = EntryInner.Lease(range: range.lowerBound..<upper, revoke: revoke)
        let lent = range.lowerBound..<upper
        return Reserved(lease: lease, file: file, range: lent, fresh: inner.takeFresh(lent))
    }

    /// The slice `reserved` stands for, with its own descriptor; called without the lock. The data file stays
    /// open meanwhile: it closes only when the engine is idle or a new version resets it, and either waits
    /// for the lease. Throws (ending the lease) when no descriptor can be made.
    func complete(_ reserved: Reserved) throws -> FileSlice {
        let descriptor: Int32
        do {
            descriptor = try reserved.file.duplicateDescriptor()
        } catch {
            endLease(reserved.lease, givingBackFresh: reserved.fresh)
            throw error
        }
        let range = reserved.range
        return FileSlice(
            descriptor: descriptor, offset: range.lowerBound, count: Int(range.upperBound - range.lowerBound)
        ) {
            [core] in
            SliceLender(core: core).endLease(reserved.lease)
        }
    }

    /// For a caller answering on the thread its request arrived on, nothing blocking: ends the use `acquire`
    /// counted and, in the same turn of the lock, reserves a slice of all of `range` when every byte is stored,
    /// of the version `info` describes, and every block checked or written by this process. Counts as a use
    /// of those blocks. Returns the reservation, whether the index record should learn of the use
    /// (`IndexWriter.flushSoon`), and whether the engine is now idle (nothing reserved, no user left).
    func reserveWholeAndRelease(
        _ range: Range<Int64>?, of info: ContentInfo, at now: Date, revoke: @escaping @Sendable () -> Void
    ) -> (reserved: Reserved?, recordLags: Bool, idle: Bool) {
        core.inner.withLock { inner in
            inner.users -= 1
            guard let range, case .done = inner.opening, inner.file != nil, inner.state.info == info,
                inner.state.stored.contains(range),
                BlockLayout.blocks(in: range).allSatisfy(inner.trusted.contains),
                let reserved = try? reserve(range, revoke: revoke, in: &inner), reserved.range == range
            else { return (nil, false, inner.isIdle) }
            for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
            // As for a reader's end: the record learns of uses at most once a second.
            return (reserved, inner.state.accessed(at: now), false)
        }
    }

    /// Takes back a slice; wakes the writes waiting for the old version's slices once none is out. A slice
    /// never made gives back the fresh bytes it took.
    fileprivate func endLease(_ lease: Int, givingBackFresh fresh: ByteRangeSet = ByteRangeSet()) {
        let (waiters, idle) = core.inner.withLock { inner -> ([CheckedContinuation<Void, Never>], Bool) in
            inner.giveBackFresh(fresh)
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
