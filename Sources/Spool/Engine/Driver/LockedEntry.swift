import Foundation

/// The state of one entry that only its lock (`EntryContext.locked`) guards: the engine's state (`EngineState`:
/// every decision and what it rests on: stored bytes, requests, readers, the blocks' checks and uses), and what
/// the driver keeps to carry the decisions out: the open data file, tasks and continuations by id, the bytes
/// still arriving, the file slices lent, and counters that wake waiters.
struct LockedEntry {
    /// One of the lists of tasks waiting for a change to the entry (`EntryContext.suspend`).
    typealias WaiterList = WritableKeyPath<LockedEntry, [Int: CheckedContinuation<Void, Never>]> & Sendable

    var state: EngineState
    /// Whether the index record and the data file have been read (`ResourceEngine.open`).
    var opening = Opening.notStarted
    var file: BlockFile?
    /// The task of the try of the running discovery (`FetchRunner.startDiscovery`; the state decides).
    var discoveryTask: Task<Void, Never>?
    /// The tasks of the origin requests, by request number; a request's next try replaces its task.
    var tasks: [Int: Task<Void, Never>] = [:]
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Requests whose body is held back (`FetchRunner.holdBack`), by request number, waiting for their
    /// readers to change.
    var holdWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Counts the wake-ups of held requests (`EntryContext.wakeHolds`): a held request compares it before and
    /// after it looks, so it never sleeps through a reader that came before it waited.
    var holdWakeups: UInt64 = 0
    /// Tests waiting for someone to wait in one of the lists above (`EntryContext.untilWaiting`), with that list.
    var waitWatchers: [(list: WaiterList, continuation: CheckedContinuation<Void, Never>)] = []
    /// Callers of `ResourceEngine.contentInfo` waiting for a discovery, by waiter number.
    var infoWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    var nextInfoWaiter = 0
    /// Counts the wake-ups of readers (`EntryContext.notifyReaders`, `arrived`): every change a reader may wait
    /// for. A reader compares it before and after its step, so it never sleeps through one that happened
    /// before it waited.
    var readerWakeups: UInt64 = 0
    var users = 0
    /// What origin responses delivered and the writes have not stored yet, for readers waiting for it.
    var arriving = ArrivingBytes()
    // Index writes (`IndexWriter`); when they come is the state's (`EngineState.record`).
    /// The record file as this engine last read or wrote it: another stamp means another process wrote.
    var recordStamp: [Int64]?

    // Blocks and their checks.
    var saltCache: (info: ContentInfo, salt: Data)?
    /// The resource's first bytes (`leadingByteCount`, or all of a shorter one), once this engine has read or
    /// written them: what the proxy tells a playlist by when it answers from stored bytes on its event loop,
    /// without a read there (`SpoolCache.lendStored`).
    var leadingBytes: Data?
    static let leadingByteCount = 16

    /// Keeps the first bytes of the resource when `data`, at `offset`, holds them.
    mutating func noteLeadingBytes(_ data: Data, at offset: Int64) {
        guard offset == 0, leadingBytes == nil, let length = state.info?.length else { return }
        let wanted = Int(min(Int64(Self.leadingByteCount), length))
        if data.count >= wanted { leadingBytes = Data(data.prefix(wanted)) }
    }

    // File slices (`SliceLender`).
    /// The file slices handed out and not yet released (see `FileSlice`), by lease number.
    var leases: [Int: Lease] = [:]
    var nextLease = 1
    /// Revocations of slices whose bytes must go, to run once the lock is left.
    var revocations: [@Sendable () -> Void] = []
    /// Writes waiting for every slice to be released, by lease-wait number.
    var leaseWaiters: [Int: CheckedContinuation<Void, Never>] = [:]

    /// No user, nothing running and no slice out: the engine may be closed.
    var isIdle: Bool { users == 0 && tasks.isEmpty && discoveryTask == nil && leases.isEmpty }

    /// How far opening the entry has come.
    enum Opening {
        case notStarted
        case running([CheckedContinuation<Void, Never>])
        case done
    }

    /// A file slice handed out: its bytes, and how to make its holder give it back early.
    struct Lease {
        let range: Range<Int64>
        let revoke: @Sendable () -> Void
    }

    /// The open data file; throws `FileNotOpen` when it is not open yet: opening it (an `open` and a `flock`
    /// that may wait) is blocking work, never done under the lock. The caller opens it off the lock
    /// (`EntryContext.openFile`) and plans again.
    func openedFile() throws -> BlockFile {
        guard let file else { throw FileNotOpen() }
        return file
    }

    /// Work planned under the lock needs the data file, which is not open yet.
    struct FileNotOpen: Error {}

    /// The salt of the version the stored bytes belong to.
    mutating func salt(key: String) -> Data {
        guard let info = state.info else { return Data() }
        if let saltCache, saltCache.info == info { return saltCache.salt }
        let salt = BlockLayout.salt(key: key, info: info)
        saltCache = (info, salt)
        return salt
    }

    /// The bytes at `position` that have arrived from the origin and are not stored yet, up to `limit`, for
    /// reader `id`, recorded as delivered, with how many of them are fresh; `nil` when the reader must wait
    /// (or read them from disk). A player's (`handOut`) are counted as the origin's once: now, not again when
    /// another read takes them from here or once stored.
    mutating func takeArriving(reader id: Int, at position: Int64, limit: Int64, handOut: Bool, now: Date) -> (
        data: Data, fresh: Int64, wakesHolds: Bool
    )? {
        guard !arriving.isEmpty, !state.stored.contains(position),
            let allowed = state.arrivingReadLimit(reader: id, position: position),
            let data = arriving.bytes(
                at: position, versionNumber: state.versionNumber, limit: min(limit, allowed),
                storedUpTo: { [state] in state.storedEnd(of: $0) })
        else { return nil }
        let range = position..<position + Int64(data.count)
        let wakesHolds = state.deliveredFromMemory(range, reader: id, at: now)
        guard handOut else { return (data, 0, wakesHolds) }
        return (data, arriving.handOut(range), wakesHolds)
    }

    /// Whether every byte reader `id` took from `arriving` is stored, or no longer waits to be (its request
    /// ended, a write failed, a new version came): a read that returned has its bytes cached, as when they
    /// came from disk.
    func memoryReadsSettled(reader id: Int) -> Bool {
        guard let taken = state.readers[id]?.takenFromMemory else { return true }
        return taken.ranges.allSatisfy { range in
            state.stored.gaps(in: range).allSatisfy { !arriving.holds($0) }
        }
    }

    /// Records that reader `id` delivered `range`, of the current version, at `now`; returns whether the holds
    /// are to be woken (`EngineState.delivered`).
    @discardableResult
    mutating func delivered(_ range: Range<Int64>, to id: Int, at now: Date) -> Bool {
        state.delivered(range, reader: id, at: now)
    }

    /// Stops claiming `ranges` (damaged or evicted): their blocks' slots are to be cleared, readers that need
    /// them fetch them again.
    mutating func forget(_ ranges: [Range<Int64>]) {
        state.forget(ranges)
        readerWakeups &+= 1
    }
}
