import Foundation

/// Reading stored bytes into memory: planned under the entry's lock, read and verified off it (on
/// `BlockingIO`), kept only if nothing was discarded meanwhile.
///
/// Stored bytes of a version are written once and never change, so bytes read for ranges that were stored
/// when the read was planned match the checksums of that moment, even while a download extends the same
/// blocks. Only a discard (damage, eviction, a new version) can change them, and only bytes adopted from
/// another process can make a checked block hold unchecked bytes: `revisions` counts both, and a read that
/// overlapped one is done again rather than trusted or reported damaged.
extension ResourceEngine {
    /// What reading `range` needs, taken under the lock.
    struct StoredRead: Sendable {
        let range: Range<Int64>
        let snapshot: BlockSnapshot
    }

    /// How a reader's next stored bytes come: a slice lent, or a read planned.
    enum PreparedRead {
        case lent(FileSlice)
        case planned(StoredRead)
    }

    /// The plan for reading `range` (stored, of the current version), with the entry's lock held.
    func planRead(of range: Range<Int64>, in inner: inout Inner) throws -> StoredRead {
        StoredRead(range: range, snapshot: try snapshot(of: [range], in: &inner))
    }

    /// Reads and verifies the planned bytes off the lock; returns them once recorded as delivered to reader
    /// `id`, or `nil` when a discard overlapped the read (the caller steps again).
    func perform(_ plan: StoredRead, for id: Int) async throws -> Data? {
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
            environment.codec.isIdentity && plan.snapshot.blocks.allSatisfy(plan.snapshot.trusted.contains)
        let outcome = checked ? read() : try await BlockingIO.run(read)
        let kept = inner.withLock { inner -> Result<Data?, any Error> in
            guard plan.snapshot.isCurrent(in: inner) else { return .success(nil) }
            switch outcome {
            case .success(let (data, trusted)):
                inner.trusted.formUnion(trusted)
                delivered(plan.range, to: id, in: &inner)
                return .success(data)
            case .failure(let damage as BlockDamage):
                forget(damage.ranges, in: &inner)
                return .failure(damage)
            case .failure(let error):
                return .failure(error)
            }
        }
        switch kept {
        case .success(let data):
            return data
        case .failure(let damage as BlockDamage):
            for range in damage.ranges {
                environment.problems.report(.corruptData(url: CacheKeyPolicy.displayURL(for: url), range: range))
            }
            notifyReaders()
            return nil
        case .failure(let error):
            throw error
        }
    }
}
