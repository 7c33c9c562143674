import Foundation

/// File slices: stored bytes lent to a caller that sends them from the data file (see `FileSlice`), and the
/// leases that make eviction spare their bytes and a new version wait for them (`VersionReset`).
struct SliceLender: Sendable {
    let context: EntryContext

    /// A slice whose lease is registered, so its bytes stay where they are, but whose descriptor is not made
    /// yet: `complete` makes it off the lock (a `dup` is a system call, and under 100 connections the entry's
    /// lock was the one the event loops waited for).
    struct Reserved: Sendable {
        fileprivate let lease: Int
        fileprivate let file: EntryFile
        /// The bytes the slice will hold.
        let range: Range<Int64>
        /// Those of them no reader had received before (`EngineState.fresh`).
        let fresh: ByteRangeSet
    }

    /// Reserves a slice of the longest start of `range` whose blocks this process has checked or written
    /// itself; `nil` when the first block still needs its check (the caller then reads it, which checks it).
    func reserve(_ range: Range<Int64>, revoke: @escaping @Sendable () -> Void, in entry: inout LockedEntry) throws
        -> Reserved?
    {
        var upper = range.lowerBound
        for block in BlockLayout.blocks(in: range) {
            guard entry.state.checks.trusted.contains(block) else { break }
            upper = min(range.upperBound, BlockLayout.range(of: block).upperBound)
        }
        guard upper > range.lowerBound else { return nil }
        let file = try entry.openedFile().data
        let lease = entry.nextLease
        entry.nextLease += 1
        entry.leases[lease] = LockedEntry.Lease(range: range.lowerBound..<upper, revoke: revoke)
        let lent = range.lowerBound..<upper
        return Reserved(lease: lease, file: file, range: lent, fresh: entry.state.fresh.take(lent))
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
            [context] in
            SliceLender(context: context).endLease(reserved.lease)
        }
    }

    /// For a caller answering on the thread its request arrived on, nothing blocking: ends the use `acquire`
    /// counted and, in the same turn of the lock, reserves a slice of all of `range` when every byte is stored,
    /// of the version `info` describes, and every block checked or written by this process. Counts as a use
    /// of those blocks. Returns the reservation, the resource's first bytes if known (`LockedEntry.leadingBytes`),
    /// whether the index record should learn of the use (`IndexWriter.flushSoon`), and whether the engine is
    /// now idle (nothing reserved, no user left).
    func reserveWholeAndRelease(
        _ range: Range<Int64>?, of info: ContentInfo, at now: Date, revoke: @escaping @Sendable () -> Void
    ) -> (reserved: Reserved?, leadingBytes: Data?, recordLags: Bool, idle: Bool) {
        context.locked.withLock { entry in
            entry.users -= 1
            guard let range, case .done = entry.opening, entry.file != nil, entry.state.info == info,
                entry.state.stored.contains(range),
                BlockLayout.blocks(in: range).allSatisfy(entry.state.checks.trusted.contains),
                let reserved = try? reserve(range, revoke: revoke, in: &entry), reserved.range == range
            else { return (nil, nil, false, entry.isIdle) }
            entry.state.blockUse.used(range, at: now)
            // As for a reader's end: the record learns of uses at most once a second.
            return (reserved, entry.leadingBytes, entry.state.accessed(at: now), false)
        }
    }

    /// Takes back a slice; wakes the writes waiting for the old version's slices once none is out. A slice
    /// never made gives back the fresh bytes it took.
    fileprivate func endLease(_ lease: Int, givingBackFresh fresh: ByteRangeSet = ByteRangeSet()) {
        let (waiters, idle) = context.locked.withLock { entry -> ([CheckedContinuation<Void, Never>], Bool) in
            entry.state.fresh.giveBack(fresh)
            guard entry.leases.removeValue(forKey: lease) != nil else { return ([], false) }
            guard entry.leases.isEmpty else { return ([], false) }
            defer { entry.leaseWaiters.removeAll() }
            return (Array(entry.leaseWaiters.values), entry.isIdle)
        }
        for waiter in waiters { waiter.resume() }
        // Slices come back on a server's event loop: this only schedules the close (`OpenEntries`).
        if idle { context.becameIdle() }
    }

    /// Returns once no slice is out, or the task is cancelled.
    func slicesReturned() async {
        let id = context.locked.withLock { entry -> Int in
            defer { entry.nextLease += 1 }
            return entry.nextLease
        }
        await context.suspend(id: id, in: \.leaseWaiters) { $0.leases.isEmpty }
    }
}
