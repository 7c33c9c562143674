import Foundation

/// What a version change does on disk: the record stops claiming the old bytes, then the data file loses
/// them, before any byte of the new version is written. So no crash can leave a record that vouches for mixed
/// bytes, and no file slice still out can read bytes of another version.
///
/// The change itself is decided and taken in under the entry's lock (`begin`); the disk work runs on the
/// entry's write queue (`perform`), where every later write waits behind it.
struct VersionReset: Sendable {
    let core: EntryCore
    let index: IndexWriter

    /// The disk work a version change still owes: the record's step, then the file's. A version dropped
    /// without a new one (`spool rm` on a resource in use) removes both files instead.
    struct Pending {
        /// Whether the record no longer claims old bytes.
        var recordDone = false
    }

    /// Forgets everything known of the stored bytes, with the lock held; the caller then has the write queue
    /// run `perform` (`ChunkWriter.catchUp`) and runs the revocations (`EntryCore.notifyReaders`).
    static func begin(in inner: inout EntryInner) {
        inner.revisions &+= 1
        inner.arriving.removeAll()
        inner.blockUse.removeAll()
        inner.edgeSums.removeAll()
        inner.trusted.removeAll()
        inner.hashers.removeAll()
        inner.distrusted = ByteRangeSet()
        inner.discards.removeAll()
        // The holders of old slices are asked at once to give them back (`EntryCore.runRevocations`, after the
        // lock): the file is emptied only once they have.
        inner.revocations += inner.leases.values.map(\.revoke)
        inner.pendingReset = Pending()
        inner.dirty = true
    }

    /// Does what the last version change owes, on the write queue. Returns `false` while the old version's
    /// slices are out (they have been revoked; writes wait for `SliceLender.slicesReturned`).
    func perform() throws -> Bool {
        for _ in 0..<Self.rounds {
            let step = core.inner.withLock { inner -> Step? in
                guard let pending = inner.pendingReset else { return nil }
                let generation = inner.state.generation
                if !pending.recordDone {
                    guard let info = inner.state.info else { return .removeFiles(generation) }
                    return .saveEmptyRecord(
                        EntryRecord(
                            url: core.displayURL, info: info, ranges: ByteRangeSet(), created: inner.created,
                            lastAccess: inner.lastAccess, pinned: inner.pinned,
                            keyCheck: core.environment.codec.keyCheck), generation)
                }
                // No slice is lent of a version with nothing stored: the ones out are the old version's.
                guard inner.leases.isEmpty else { return .waitForSlices }
                return .truncate(inner.file, generation)
            }
            switch step {
            case nil:
                return true
            case .waitForSlices:
                return false
            case .saveEmptyRecord(let record, let generation):
                try index.serially { try core.store.save(record, key: core.key) }
                finish(generation) { $0.pendingReset?.recordDone = true }
            case .removeFiles(let generation):
                index.serially { core.store.remove(key: core.key) }
                // Slices still out keep reading the removed file; the next write opens a new one.
                var closing: BlockFile?
                finish(generation) { inner in
                    closing = inner.file
                    inner.file = nil
                    inner.pendingReset = nil
                }
                closing?.close()
            case .truncate(let file, let generation):
                let file = try file ?? core.store.openFile(key: core.key, codec: core.environment.codec)
                try file.truncate()
                finish(generation) { inner in
                    if inner.file == nil { inner.file = file }
                    inner.pendingReset = nil
                }
            }
        }
        throw SpoolError.storage("the resource kept changing")
    }

    /// How often a reset starts over because yet another version came while it ran.
    private static let rounds = 16

    private enum Step {
        case saveEmptyRecord(EntryRecord, Int)
        case removeFiles(Int)
        case truncate(BlockFile?, Int)
        case waitForSlices
    }

    /// Records a step done, unless another version came meanwhile: its reset starts over.
    private func finish(_ generation: Int, _ update: (inout EntryInner) -> Void) {
        core.inner.withLock { inner in
            guard inner.state.generation == generation, inner.pendingReset != nil else { return }
            update(&inner)
        }
    }
}
