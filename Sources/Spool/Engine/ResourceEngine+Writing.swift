import Foundation

/// The write-through of what origin requests receive: each chunk's new bytes to the data file and their
/// checksums, and what that tells the state.
extension ResourceEngine {
    /// What writing a chunk needs, taken under the entry's lock: the parts not stored yet and the bookkeeping
    /// of the blocks they touch, as it is now.
    private struct PlannedWrite: Sendable {
        let parts: [Range<Int64>]
        let snapshot: BlockSnapshot
    }

    /// What the file holds after a planned write, even one that failed half-way.
    private struct WriteResult: Sendable {
        var present: ByteRangeSet
        var edges: EdgeSums
        var trusted: Set<Int64>
        var hashers: [Int64: BlockHasher]
        var damaged: [Range<Int64>] = []
        var failure: (any Error)?
    }

    /// Writes the parts of `chunk` (at resource `offset`) that are not stored yet; returns whether request
    /// `id` wants more, or `nil` when nothing could be written until the old version's file slices are back.
    ///
    /// The writing and hashing happen on the entry's serial write queue (on `BlockingIO`), off its lock: one
    /// chunk at a time per entry, planned, written and taken in within one job, so the checksums of a block
    /// two requests fill are computed in turn, while readers go on.
    func store(_ chunk: Data, at offset: Int64, fetch id: Int) async throws -> Bool? {
        let outcome: (more: Bool, damaged: [Range<Int64>])?
        do {
            outcome = try await BlockingIO.run(on: writeQueue) { try self.storeNow(chunk, at: offset, fetch: id) }
        } catch {
            if case .storage(let reason) = error as? SpoolError { environment.problems.report(.storageFailed(reason)) }
            throw error
        }
        guard let outcome else { return nil }
        let flushDue = inner.withLock { inner -> Bool in
            inner.unflushedBytes += Int64(chunk.count)
            inner.dirty = true
            inner.unsynced = true
            // A fast download would sync every few milliseconds: at most a few times a second is enough to
            // keep what a crash costs small (bytes not yet claimed are fetched again, never served wrong).
            return inner.unflushedBytes >= policy.indexInterval
                && ProcessInfo.processInfo.systemUptime - inner.lastFlush >= Self.minimumFlushInterval
        }
        environment.problems.storageWorked(Int64(chunk.count))
        for range in outcome.damaged {
            environment.problems.report(.corruptData(url: CacheKeyPolicy.displayURL(for: url), range: range))
        }
        environment.didWrite(Int64(chunk.count))
        if flushDue { flushSoon() }
        return outcome.more
    }

    /// `store`'s work, blocking, on the write queue: plans under the lock, writes off it, takes the result in
    /// under the lock unless a discard or an adoption changed the entry meanwhile (then the chunk is written
    /// again from a fresh plan: the same bytes at the same places). `nil` while old slices block the write.
    private func storeNow(_ chunk: Data, at offset: Int64, fetch id: Int) throws -> (
        more: Bool, damaged: [Range<Int64>]
    )? {
        let range = offset..<(offset + Int64(chunk.count))
        var damaged: [Range<Int64>] = []
        var attempts = 0
        while true {
            let planned = try inner.withLock { inner -> PlannedWrite?? in
                if inner.truncatePending {
                    guard inner.leases.isEmpty else { return .some(nil) }
                    try emptyFileForNewVersion(&inner)
                }
                guard let parts = inner.state.unstoredParts(of: range, fetch: id) else { return nil }
                return .some(try planWrite(of: parts, in: &inner))
            }
            guard let planned else { return (false, damaged) }
            guard let plan = planned else { return nil }
            if plan.parts.isEmpty { break }
            let result = Self.write(chunk, at: offset, plan)
            let applied = inner.withLock { inner -> Bool in
                guard plan.snapshot.isCurrent(in: inner) else { return false }
                apply(result, of: plan, in: &inner)
                return true
            }
            attempts += 1
            if let failure = result.failure, applied || attempts > Self.writeAttempts { throw failure }
            guard applied else {
                if attempts > Self.writeAttempts { throw SpoolError.storage("the entry kept changing") }
                continue
            }
            if result.damaged.isEmpty { break }
            // Damage found on the way un-stored bytes, some of which this chunk may carry: go round until
            // every byte of the chunk that is not stored has been written.
            damaged += result.damaged
        }
        let more = inner.withLock { $0.state.didStore(range, fetch: id) }
        return (more, damaged)
    }

    /// How often a chunk is written again because the entry changed under the write before it gives up.
    private static let writeAttempts = 16

    private func planWrite(of parts: [Range<Int64>], in inner: inout Inner) throws -> PlannedWrite {
        PlannedWrite(parts: parts, snapshot: try snapshot(of: parts, in: &inner))
    }

    /// Writes the planned parts of `chunk` and their checksums; blocking, on the write queue.
    private static func write(_ chunk: Data, at offset: Int64, _ plan: PlannedWrite) -> WriteResult {
        let taken = plan.snapshot
        var result = WriteResult(
            present: taken.present, edges: taken.edges, trusted: taken.trusted, hashers: taken.hashers)
        do {
            for part in plan.parts {
                let start = chunk.startIndex + Int(part.lowerBound - offset)
                let bytes = chunk[start..<(start + Int(part.upperBound - part.lowerBound))]
                result.damaged += try taken.file.write(
                    bytes, at: part.lowerBound, present: &result.present, edges: &result.edges,
                    trusted: &result.trusted, hashers: &result.hashers, length: taken.length, salt: taken.salt)
            }
            // Already out of `present`; their blocks' slots are cleared.
            for range in result.damaged { try? taken.file.discard(range) }
        } catch {
            result.failure = error
        }
        return result
    }

    /// Takes in what a write left on disk: the state learns the bytes gained and lost, and the written
    /// blocks' checksums, checks and running hashes replace the ones of the plan.
    private func apply(_ result: WriteResult, of plan: PlannedWrite, in inner: inout Inner) {
        reportDiskChange(from: plan.snapshot.present, to: result.present, in: &inner)
        for block in plan.snapshot.blocks {
            inner.edgeSums[block] = result.edges[block]
            inner.hashers[block] = result.hashers[block]
            if result.trusted.contains(block) { inner.trusted.insert(block) } else { inner.trusted.remove(block) }
        }
        // Damaged bytes were discarded: a read planned before must not take their blocks for checked.
        if !result.damaged.isEmpty { inner.revisions &+= 1 }
        let now = environment.clock()
        for block in plan.snapshot.blocks { inner.blockUse[block] = now }
        inner.dirty = true
    }

    /// Tells the state what a write did to the bytes on disk: `before` became `after`.
    private func reportDiskChange(from before: ByteRangeSet, to after: ByteRangeSet, in inner: inout Inner) {
        var gained = after
        var lost = before
        for range in before.ranges { gained.remove(range) }
        for range in after.ranges { lost.remove(range) }
        inner.state.lost(lost.ranges)
        inner.state.gained(gained)
    }
}
