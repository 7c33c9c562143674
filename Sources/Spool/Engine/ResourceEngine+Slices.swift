import Foundation

/// File slices: stored bytes lent to a caller that sends them from the data file, and what the engine holds
/// back while they are out (see `FileSlice`).
extension ResourceEngine {
    /// A slice of the longest start of `range` whose blocks this process has checked or written itself; `nil`
    /// when the first block still needs its check (the caller then reads it, which checks it).
    func lendSlice(of range: Range<Int64>, revoke: @escaping @Sendable () -> Void, in inner: inout Inner) throws
        -> FileSlice?
    {
        var upper = range.lowerBound
        for block in BlockLayout.blocks(in: range) {
            guard inner.trusted.contains(block) else { break }
            upper = min(range.upperBound, BlockLayout.range(of: block).upperBound)
        }
        guard upper > range.lowerBound else { return nil }
        let descriptor = try inner.openFile(environment, key: key).data.duplicateDescriptor()
        let lease = inner.nextLease
        inner.nextLease += 1
        inner.leases[lease] = Lease(range: range.lowerBound..<upper, revoke: revoke)
        return FileSlice(descriptor: descriptor, offset: range.lowerBound, count: Int(upper - range.lowerBound)) {
            [self] in
            self.endLease(lease)
        }
    }

    /// Takes back a slice; wakes the requests waiting to empty the file once none is out.
    private func endLease(_ lease: Int) {
        let (waiters, idle) = inner.withLock { inner -> ([CheckedContinuation<Void, Never>], Bool) in
            guard inner.leases.removeValue(forKey: lease) != nil else { return ([], false) }
            guard inner.leases.isEmpty else { return ([], false) }
            defer { inner.leaseWaiters.removeAll() }
            return (Array(inner.leaseWaiters.values), inner.isIdle)
        }
        for waiter in waiters { waiter.resume() }
        // Slices come back on a server's event loop, which closing an idle engine (an index write) would block.
        if idle { Task { self.onIdle(self) } }
    }

    /// Returns once no slice is out, or the task is cancelled.
    func slicesReturned() async {
        let id = inner.withLock { inner -> Int in
            defer { inner.nextLease += 1 }
            return inner.nextLease
        }
        await suspend(id: id, in: \.leaseWaiters) { $0.leases.isEmpty }
    }

    /// Empties the data file for a new version, unless slices of the old one are out: then they are revoked,
    /// and the file is emptied by the first write once they are back (see `store`).
    func emptyFileForNewVersion(_ inner: inout Inner) throws {
        guard inner.leases.isEmpty else {
            inner.truncatePending = true
            inner.revocations += inner.leases.values.map(\.revoke)
            return
        }
        inner.truncatePending = false
        try inner.openFile(environment, key: key).truncate()
    }

    /// Runs the revocations queued under the lock.
    func runRevocations() {
        let revocations = inner.withLock { inner in
            defer { inner.revocations.removeAll() }
            return inner.revocations
        }
        for revoke in revocations { revoke() }
    }
}
