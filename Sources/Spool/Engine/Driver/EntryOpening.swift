import Foundation

/// What opening an entry reads from disk, off every lock: its index record (dropped when sealed with another
/// key), its data file, opened so that the shared lock tells other processes the entry is in use, and the
/// blocks this process checked before the entry last closed.
struct EntryOpening: Sendable {
    let record: EntryRecord?
    let file: BlockFile?
    let recordStamp: [Int64]?
    let trusted: Set<Int64>
    /// What the record claimed beyond its data file's end (the file was cut short or emptied): the record on
    /// disk still names these bytes, and a file grown again past them holds holes there.
    let beyondData: ByteRangeSet
    /// What was wrong, for the caller to report outside every lock.
    let problem: SpoolProblem?

    /// Reads the entry `key`; blocking.
    init(key: String, environment: EngineEnvironment) {
        let store = environment.store
        let checked = store.checkedRecord(key: key)
        var record = checked?.record
        beyondData = checked?.beyondData ?? ByteRangeSet()
        var problem: SpoolProblem?
        if let found = record, found.keyCheck != environment.codec.keyCheck {
            // Sealed with another key, or with none: nothing in it can be read; start afresh.
            if !found.ranges.isEmpty { problem = .wrongKey(url: found.url) }
            store.remove(key: key)
            record = nil
        }
        self.problem = problem
        self.record = record
        recordStamp = store.recordStamp(key: key)
        guard let record, let file = try? store.openFile(key: key, codec: environment.codec) else {
            file = nil
            trusted = []
            return
        }
        self.file = file
        // Checked before this entry last closed, in this process, for this version and this very file, and
        // complete: a partial block may have gained another process's bytes since, which nobody here has checked.
        let salt = BlockLayout.salt(key: key, info: record.info)
        trusted = environment.checked.take(key: key, salt: salt, file: file.data.identity).filter {
            record.ranges.contains(BlockLayout.range(of: $0, length: record.info.length))
        }
    }

    /// Takes what was read into the entry's state, with its lock held.
    func install(in entry: inout LockedEntry, policy: FetchPolicy) {
        entry.recordStamp = recordStamp
        if let file { entry.file = file }
        guard let record else { return }
        // Opened now: the entry's last access is now, whatever the record says.
        entry.state = EngineState(
            policy: policy, info: record.info, stored: record.ranges,
            created: entry.state.record.lastAccess)
        entry.state.recordOpened(record)
        entry.state.checks.opened(edges: record.edgeSums, trusted: trusted, distrusted: beyondData)
    }
}
