import Foundation

/// Reads stored bytes into memory: planned under the entry's lock, read and verified off it (on
/// `BlockingIO`), kept only if nothing was discarded meanwhile.
///
/// Stored bytes of a version are written once and never change, so bytes read for ranges that were stored
/// when the read was planned match the checksums of that moment, even while a download extends the same
/// blocks. Only a discard (damage, eviction, a new version) can change them, and only bytes adopted from
/// another process can make a checked block hold unchecked bytes: `planInvalidations` counts both, and a read that
/// overlapped one is done again rather than trusted or reported damaged.
struct StoredReader: Sendable {
    let context: EntryContext

    /// What reading `range` needs, taken under the lock.
    struct Plan: Sendable {
        let range: Range<Int64>
        let snapshot: BlockSnapshot
    }

    /// The plan for reading `range` (stored, of the current version), with the entry's lock held.
    func plan(_ range: Range<Int64>, in entry: inout LockedEntry) throws -> Plan {
        Plan(range: range, snapshot: try BlockSnapshot(of: [range], in: &entry, context: context))
    }

    /// Reads and verifies the planned bytes off the lock; returns them once recorded as delivered to reader
    /// `id`, or `nil` when a discard overlapped the read (the caller steps again).
    func perform(_ plan: Plan, for id: Int) async throws -> Data? {
        let read = { @Sendable () -> Result<(Data, Set<Int64>), any Error> in
            Result {
                let taken = plan.snapshot
                var trusted = taken.trusted
                let data = try taken.file.read(
                    plan.range, present: taken.present, edges: taken.edges, trusted: &trusted, length: taken.length,
                    salt: taken.salt)
                return (data, trusted)
            }
        }
        // Checked bytes of an unencrypted cache are one `pread` from the page cache, without hashing: read in
        // place, as the trip to `BlockingIO` and back cost about 50 µs a chunk (SpoolCache.read of a cached
        // file went from 6.6 to 2.8 GB/s with it). Anything to verify or decrypt goes there.
        let checked =
            context.environment.codec.isIdentity && plan.snapshot.blocks.allSatisfy(plan.snapshot.trusted.contains)
        // The one blocking call a Swift task makes, allowed by name in the debug checks.
        let outcome = checked ? ConcurrencyChecks.allowingBlocking(read) : try await BlockingIO.run(read)
        let now = context.environment.clock.date
        var wakesHolds = false
        let kept = context.locked.withLock { entry -> Result<Data?, any Error> in
            guard plan.snapshot.isCurrent(in: entry) else { return .success(nil) }
            switch outcome {
            case .success(let (data, trusted)):
                entry.state.checks.read(checked: trusted)
                wakesHolds = entry.delivered(plan.range, to: id, at: now)
                entry.noteLeadingBytes(data, at: plan.range.lowerBound)
                return .success(data)
            case .failure(let damage as BlockDamage):
                entry.forget(damage.ranges)
                return .failure(damage)
            case .failure(let error):
                return .failure(error)
            }
        }
        if wakesHolds { context.wakeHolds() }
        switch kept {
        case .success(let data):
            return data
        case .failure(let damage as BlockDamage):
            context.reportDamage(damage.ranges)
            context.notifyReaders()
            return nil
        case .failure(let error):
            throw error
        }
    }
}
