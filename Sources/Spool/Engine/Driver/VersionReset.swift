import Foundation

/// Does what a version change owes on disk (`EngineState+Reset` decides the steps): saves the record that
/// claims nothing, empties the data file or removes both files, on the entry's write queue, where every later
/// write waits behind it. And forgets, under the entry's lock, what the driver knew of the old bytes.
struct VersionReset: Sendable {
    let core: EntryCore
    let index: IndexWriter

    /// Forgets what the driver knows of the stored bytes after the state changed version, with the lock held;
    /// the caller then has the write queue run `perform` (`ChunkWriter.catchUp`) and runs the revocations
    /// (`EntryCore.notifyReaders`).
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
    }

    /// Does what the last version change owes, on the write queue. Returns `false` while the old version's
    /// slices are out (they have been revoked; writes wait for `SliceLender.slicesReturned`).
    func perform() throws -> Bool {
        for _ in 0..<Self.rounds {
            let (step, generation, record, file) = core.inner.withLock { inner in
                let step = inner.state.resetStep(slicesOut: !inner.leases.isEmpty)
                var record: EntryRecord?
                if case .clearRecord(let info) = step {
                    let schedule = inner.state.record
                    record = EntryRecord(
                        url: core.displayURL, info: info, ranges: ByteRangeSet(), created: schedule.created,
                        lastAccess: schedule.lastAccess, pinned: schedule.pinned,
                        keyCheck: core.environment.codec.keyCheck)
                }
                return (step, inner.state.generation, record, inner.file)
            }
            switch step {
            case nil:
                return true
            case .waitForSlices:
                return false
            case .clearRecord(let info):
                if let record { try index.serially { try core.store.save(record, key: core.key) } }
                done(.clearRecord(info), generation)
            case .removeFiles:
                index.serially { core.store.remove(key: core.key) }
                // Slices still out keep reading the removed file; the next write opens a new one.
                var closing: BlockFile?
                done(.removeFiles, generation) { inner in
                    closing = inner.file
                    inner.file = nil
                }
                closing?.close()
            case .emptyFile:
                let file = try file ?? core.store.openFile(key: core.key, codec: core.environment.codec)
                try file.truncate()
                done(.emptyFile, generation) { inner in
                    if inner.file == nil { inner.file = file }
                }
            }
        }
        throw SpoolError.storage("the resource kept changing")
    }

    /// How often a reset starts over because yet another version came while it ran.
    private static let rounds = 16

    /// Reports `step` done to the state and runs `update`, unless another version came meanwhile: its reset
    /// starts over.
    private func done(
        _ step: EngineState.ResetStep, _ generation: Int, _ update: (inout EntryInner) -> Void = { _ in }
    ) {
        core.inner.withLock { inner in
            guard inner.state.generation == generation, inner.state.isResetting else { return }
            inner.state.resetStepDone(step, generation: generation)
            update(&inner)
        }
    }
}
