import Foundation

/// Readers: registering them, stepping each through the state machine, reading stored bytes and waiting for
/// the ones still coming.
extension ResourceEngine {
    /// Registers a reader of the bytes before `requestedEnd` (`nil`: to the end).
    func addReader(requestedEnd: Int64?) -> Int {
        inner.withLock { $0.state.addReader(requestedEnd: requestedEnd) }
    }

    /// Unregisters a reader and cancels the requests only it needed; their bytes so far stay stored, and
    /// the index learns of them.
    func removeReader(_ id: Int) {
        let now = environment.clock()
        let orphans = inner.withLock { inner in
            inner.readerPositions[id] = nil
            // A read is a use: the entry's last access moves, for least-recently-used eviction.
            inner.lastAccess = now
            // The record learns of reads at most once a second, without a sync (it claims nothing new): a
            // burst of small requests costs one record write, not one each.
            if inner.state.info != nil, now.timeIntervalSince(inner.savedLastAccess) >= 1 { inner.dirty = true }
            return inner.state.removeReader(id).compactMap { inner.tasks[$0] }
        }
        for task in orphans { task.cancel() }
        flushSoon()
    }

    /// Waits for the running origin requests to end, then brings the index up to date.
    func settle() async {
        let running = inner.withLock { Array($0.tasks.values) }
        for task in running { await task.value }
        flush()
    }

    /// The next bytes for reader `id` at `position`, as soon as they are on disk; `nil` at the end. A
    /// prefetch read starts no origin request while `gate` says a playback read waits. A reader that has
    /// delivered bytes from disk only awaits `consumer` (when given) before its first origin request. With
    /// `revoke` given, stored bytes this process has checked come as a `FileSlice` (up to
    /// `FetchPolicy.fileSliceSize` at once) where the cache is not encrypted; `revoke` is how the engine asks
    /// for the slice back early.
    func nextPart(
        reader id: Int, position: Int64, priority: ReadPriority, gate: PlaybackGate,
        consumer: (@Sendable () async throws -> Void)? = nil, revoke: (@Sendable () -> Void)? = nil
    ) async throws -> StreamPart? {
        let slicing = revoke != nil && environment.codec.isIdentity
        let readLimit = Int64(slicing ? policy.fileSliceSize : policy.readChunkSize)
        while true {
            try Task.checkCancellation()
            let link = environment.link.estimate(for: url)
            if priority == .prefetch, !inner.withLock({ $0.state.stored.contains(position) }) {
                await gate.waitForPlayback()
                try Task.checkCancellation()
            }
            if let consumer, inner.withLock({ $0.state.mustAskConsumer(reader: id, position: position, link: link) }) {
                try await consumer()
                inner.withLock { $0.state.consumerCaughtUp(reader: id) }
                continue
            }
            let (step, seen) = inner.withLock { inner -> (EngineState.Step, UInt64) in
                inner.readerPositions[id] = position
                var step = inner.state.step(reader: id, position: position, link: link, readLimit: readLimit)
                if case .wait(let starts) = step, !starts.isEmpty, adoptStoredElsewhere(&inner) {
                    // Another process stored bytes since: take them rather than fetch them again.
                    for start in starts { inner.state.finishFetch(start.id, failure: nil) }
                    step = inner.state.step(reader: id, position: position, link: link, readLimit: readLimit)
                }
                if case .wait(let starts) = step {
                    for start in starts { inner.tasks[start.id] = Task { await self.runFetch(start.id) } }
                }
                return (step, inner.changes)
            }
            switch step {
            case .finished:
                return nil
            case .fail(let error):
                throw error
            case .read(let range, let generation):
                // A slice lent, or the plan of a read that happens off the lock.
                let prepared = inner.withLock { inner -> Result<PreparedRead?, any Error> in
                    guard inner.state.generation == generation, inner.state.stored.contains(range) else {
                        return .success(nil)
                    }
                    return Result {
                        if let revoke, slicing, let slice = try lendSlice(of: range, revoke: revoke, in: &inner) {
                            delivered(slice.offset..<(slice.offset + Int64(slice.count)), to: id, in: &inner)
                            return .lent(slice)
                        }
                        let read =
                            range.lowerBound..<min(range.upperBound, range.lowerBound + Int64(policy.readChunkSize))
                        return .planned(try planRead(of: read, in: &inner))
                    }
                }
                switch try prepared.get() {
                case nil: continue
                case .lent(let slice)?: return .file(slice)
                case .planned(let plan)?:
                    if let data = try await perform(plan, for: id) { return .bytes(data) }
                }
            case .wait:
                if priority == .playback { gate.playbackWaits() }
                await waitForChange(reader: id, seen: seen)
                if priority == .playback { gate.playbackResumed() }
            }
        }
    }

    /// Records that reader `id` delivered `range`, of the current version.
    func delivered(_ range: Range<Int64>, to id: Int, in inner: inout Inner) {
        inner.state.markDelivered(reader: id, generation: inner.state.generation)
        inner.readerPositions[id] = range.upperBound
        let now = environment.clock()
        for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
    }

    private func waitForChange(reader id: Int, seen: UInt64) async {
        await suspend(id: id, in: \.waiters) { $0.changes != seen }
    }

    /// Returns once `ready` holds (checked under the lock) or the task is cancelled. Until then the caller waits
    /// in `waiters` under `id`, for whoever makes `ready` true to resume it outside the lock.
    func suspend(
        id: Int, in waiters: WritableKeyPath<Inner, [Int: CheckedContinuation<Void, Never>]> & Sendable,
        until ready: (Inner) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = inner.withLock { inner in
                    if ready(inner) || Task.isCancelled { return true }
                    inner[keyPath: waiters][id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            inner.withLock { $0[keyPath: waiters].removeValue(forKey: id) }?.resume()
        }
    }

    func notifyReaders() {
        runRevocations()
        let waiters = inner.withLock { inner in
            inner.changes &+= 1
            defer { inner.waiters.removeAll() }
            return Array(inner.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
