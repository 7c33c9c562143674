import Foundation

/// Does what a version change owes on disk (`EngineState+Reset` decides the steps): saves the record that
/// claims nothing, empties the data file or removes both files, on the entry's write queue, where every later
/// write waits behind it. And forgets, under the entry's lock, what the driver knew of the old bytes.
struct VersionReset: Sendable {
    let context: EntryContext
    let index: IndexWriter

    /// Forgets what the driver holds of the old bytes after the state changed version (the state started its
    /// own knowledge of them afresh: `BlockChecks`), with the lock held; the caller then has the write queue
    /// run `perform` (`ChunkWriter.catchUp`) and runs the revocations (`EntryContext.notifyReaders`).
    static func begin(in entry: inout LockedEntry) {
        entry.arriving.removeAll()
        entry.leadingBytes = nil
        // The holders of old slices are asked at once to give them back (`EntryContext.runRevocations`, after the
        // lock): the file is emptied only once they have.
        entry.revocations += entry.leases.values.map(\.revoke)
    }

    /// Does what the last version change owes, on the write queue. Returns `false` while the old version's
    /// slices are out (they have been revoked; writes wait for `SliceLender.slicesReturned`).
    func perform() throws -> Bool {
        for _ in 0..<Self.rounds {
            let (step, versionNumber, record, file) = context.locked.withLock { entry in
                let step = entry.state.resetStep(slicesOut: !entry.leases.isEmpty)
                var record: EntryRecord?
                if case .clearRecord(let info) = step {
                    let schedule = entry.state.record
                    record = EntryRecord(
                        url: context.displayURL, info: info, ranges: ByteRangeSet(), created: schedule.created,
                        lastAccess: schedule.lastAccess, pinned: schedule.pinned,
                        keyCheck: context.environment.codec.keyCheck)
                }
                return (step, entry.state.versionNumber, record, entry.file)
            }
            switch step {
            case nil:
                return true
            case .waitForSlices:
                return false
            case .clearRecord(let info):
                if let record { try index.serially { try context.store.save(record, key: context.key) } }
                done(.clearRecord(info), versionNumber)
            case .removeFiles:
                index.serially { context.store.remove(key: context.key) }
                // Slices still out keep reading the removed file; the next write opens a new one.
                var closing: BlockFile?
                done(.removeFiles, versionNumber) { entry in
                    closing = entry.file
                    entry.file = nil
                }
                closing?.close()
            case .emptyFile:
                let file = try file ?? context.store.openFile(key: context.key, codec: context.environment.codec)
                try file.truncate()
                done(.emptyFile, versionNumber) { entry in
                    if entry.file == nil { entry.file = file }
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
        _ step: EngineState.ResetStep, _ versionNumber: Int, _ update: (inout LockedEntry) -> Void = { _ in }
    ) {
        context.locked.withLock { entry in
            guard entry.state.resetStepDone(step, versionNumber: versionNumber) else { return }
            update(&entry)
        }
    }
}
