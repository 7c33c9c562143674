import Foundation

/// The write-through of what origin requests receive: each chunk's new bytes to the data file and their
/// checksums, and what that tells the state.
///
/// All of an entry's disk changes run on its serial `queue` (on `BlockingIO`), off the lock: chunks, one at a
/// time, planned, written and taken in within one job, so the checksums of a block two requests fill are
/// computed in turn while readers go on; before each, the slots of discarded blocks and what a version change
/// owes (`VersionReset`).
struct ChunkWriter: Sendable {
    let context: EntryContext
    let index: IndexWriter
    let reset: VersionReset
    /// Where this entry's writes run, one job at a time.
    let queue = BlockingIO.serialQueue(label: "Spool.ChunkWriter")

    init(context: EntryContext, index: IndexWriter) {
        self.context = context
        self.index = index
        reset = VersionReset(context: context, index: index)
    }

    /// What writing a chunk needs, taken under the entry's lock: the parts not stored yet and the bookkeeping
    /// of the blocks they touch, as it is now.
    /// No snapshot: the entry must catch up first.
    private struct PlannedWrite: Sendable {
        let parts: [Range<Int64>]
        let snapshot: BlockSnapshot?
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

    /// Writes the parts of `chunks` (contiguous, the first at resource `offset`) that are not stored yet, in
    /// one job on the queue. Returns how many chunks it took in, the bytes it wrote, and whether request `id`
    /// wants more: `nil` when the rest can be written only once the old version's file slices are back.
    func store(_ chunks: [Data], at offset: Int64, fetch id: Int) async throws -> (
        taken: Int, written: Int64, more: Bool?
    ) {
        let environment = context.environment
        // Limits are enforced as data is written, room made before a batch lands (off this task's thread), so
        // a batch of several blocks does not take the cache past its limit.
        let limitsChecked = await environment.willWrite(chunks.reduce(0) { $0 + Int64($1.count) })
        let outcome: BatchOutcome
        do {
            outcome = try await BlockingIO.run(on: queue) {
                var outcome = BatchOutcome()
                var position = offset
                for chunk in chunks {
                    guard let stored = try storeNow(chunk, at: position, fetch: id) else {
                        outcome.more = nil
                        break
                    }
                    outcome.taken += 1
                    outcome.bytes += Int64(chunk.count)
                    outcome.damaged += stored.damaged
                    position += Int64(chunk.count)
                    outcome.more = stored.more
                    if !stored.more { break }
                }
                return outcome
            }
        } catch {
            if case .storage(let reason) = error as? SpoolError { environment.problems.report(.storageFailed(reason)) }
            throw error
        }
        context.runRevocations()
        environment.problems.storageWorked(outcome.bytes)
        context.reportDamage(outcome.damaged)
        if limitsChecked { await environment.limitsAfterWrite() }
        return (outcome.taken, outcome.bytes, outcome.more)
    }

    /// What one batch's job did.
    private struct BatchOutcome: Sendable {
        var taken = 0
        var bytes: Int64 = 0
        var damaged: [Range<Int64>] = []
        var more: Bool? = true
    }

    /// Has the queue clear discarded slots and do what a version change owes, without waiting for it.
    func catchUp() {
        queue.async {
            _ = try? catchUpNow()
            context.runRevocations()
        }
    }

    /// Clears the slots of discarded ranges and does what a version change owes; `false` while old slices
    /// are out. On the queue.
    private func catchUpNow() throws -> Bool {
        let (discards, file) = context.locked.withLock { entry in (entry.state.checks.takeDiscards(), entry.file) }
        for range in discards { try? file?.discard(range) }
        guard try reset.perform() else { return false }
        // A new entry's data file is created here, so that planning a write never opens it under the lock.
        try context.openFileNow()
        return true
    }

    /// `store`'s work, blocking, on the queue: plans under the lock, writes off it, takes the result in under
    /// the lock unless a discard or an adoption changed the entry meanwhile (then the chunk is written again
    /// from a fresh plan: the same bytes at the same places). `nil` while old slices block the write.
    private func storeNow(_ chunk: Data, at offset: Int64, fetch id: Int) throws -> (
        more: Bool, damaged: [Range<Int64>]
    )? {
        let range = offset..<(offset + Int64(chunk.count))
        var damaged: [Range<Int64>] = []
        var rounds = WriteRounds()
        writing: while true {
            guard try catchUpNow() else { return nil }
            let planned = try context.locked.withLock { entry -> PlannedWrite? in
                // The data file is opened by catching up, off the lock.
                guard !entry.state.isResetting, entry.state.checks.discards.isEmpty, entry.file != nil else {
                    return PlannedWrite(parts: [], snapshot: nil)
                }
                guard let parts = entry.state.unstoredParts(of: range, fetch: id) else { return nil }
                return PlannedWrite(parts: parts, snapshot: try BlockSnapshot(of: parts, in: &entry, context: context))
            }
            guard let plan = planned else { return (false, damaged) }
            // Another version or discard came between catching up and planning: catch up again.
            guard let snapshot = plan.snapshot else {
                if case .fail(let error) = rounds.planStale() { throw error }
                continue
            }
            if plan.parts.isEmpty { break }
            let result = Self.write(chunk, at: offset, plan.parts, snapshot)
            let applied = context.locked.withLock { entry -> Bool in
                guard snapshot.isCurrent(in: entry) else { return false }
                apply(result, of: snapshot, in: &entry)
                if result.failure == nil { entry.noteLeadingBytes(chunk, at: offset) }
                for part in plan.parts { entry.state.fresh.stored(entry.arriving.takeFresh(part)) }
                return true
            }
            if applied { damaged += result.damaged }
            switch rounds.written(applied: applied, failure: result.failure, foundDamage: !result.damaged.isEmpty) {
            case .done: break writing
            case .again: continue
            case .fail(let error): throw error
            }
        }
        let more = context.locked.withLock { $0.state.didStore(range, fetch: id) }
        return (more, damaged)
    }

    /// Writes the planned parts of `chunk` and their checksums; blocking, on the write queue.
    private static func write(
        _ chunk: Data, at offset: Int64, _ parts: [Range<Int64>], _ taken: BlockSnapshot
    ) -> WriteResult {
        var result = WriteResult(
            present: taken.present, edges: taken.edges, trusted: taken.trusted, hashers: taken.hashers)
        do {
            for part in parts {
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
    private func apply(_ result: WriteResult, of snapshot: BlockSnapshot, in entry: inout LockedEntry) {
        reportDiskChange(from: snapshot.present, to: result.present, in: &entry)
        entry.state.checks.wrote(
            snapshot.blocks, edges: result.edges, hashers: result.hashers, trusted: result.trusted,
            foundDamage: !result.damaged.isEmpty)
        let now = context.environment.clock.date
        entry.state.blockUse.used(blocks: snapshot.blocks, at: now)
    }

    /// Tells the state what a write did to the bytes on disk: `before` became `after`.
    private func reportDiskChange(from before: ByteRangeSet, to after: ByteRangeSet, in entry: inout LockedEntry) {
        var gained = after
        var lost = before
        for range in before.ranges { gained.remove(range) }
        for range in after.ranges { lost.remove(range) }
        entry.state.lost(lost.ranges)
        entry.state.gained(gained)
    }
}
