import Foundation

/// Loads one resource: serves readers from the data file, fetches what is missing from the origin in shared,
/// bounded requests, writes it through to disk and wakes the readers waiting for it.
///
/// Decisions live in `LoaderState`; this type performs them (tasks, disk, index) under one lock, so that a
/// write, the claim that it is stored and the version check happen as one step.
final class ResourceLoader: Sendable {
    private struct Inner {
        var state: LoaderState
        var file: EntryFile?
        var created: Date
        var infoTask: Task<ContentInfo, any Error>?
        var tasks: [Int: Task<Void, Never>] = [:]
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Counts state changes, so a reader never sleeps through one that happened before it waited.
        var changes: UInt64 = 0
        var unflushedBytes: Int64 = 0
        /// Whether the index record lags behind the state.
        var dirty = false
        var users = 0
        var pinned = false

        /// No user and nothing running: the loader may be closed.
        var isIdle: Bool { users == 0 && tasks.isEmpty && infoTask == nil }

        mutating func openFile(_ store: DiskStore, key: String) throws -> EntryFile {
            if let file { return file }
            let opened = try store.openFile(key: key)
            file = opened
            return opened
        }
    }

    let key: String
    let url: URL
    let origin: any Origin
    private let store: DiskStore
    private let policy: FetchPolicy
    private let inner: LockedBox<Inner>
    private let flushLock = NSLock()
    private let onIdle: @Sendable (ResourceLoader) -> Void

    /// A loader for the resource at `url`, stored under `key`; `onIdle` runs when its last request ends
    /// with no user left.
    init(
        key: String, url: URL, origin: any Origin, store: DiskStore, policy: FetchPolicy,
        onIdle: @escaping @Sendable (ResourceLoader) -> Void
    ) {
        self.onIdle = onIdle
        self.key = key
        self.url = url
        self.origin = origin
        self.store = store
        self.policy = policy
        let record = store.record(key: key)
        let state = LoaderState(policy: policy, info: record?.info, stored: record?.ranges ?? ByteRangeSet())
        var initial = Inner(state: state, created: record?.created ?? Date())
        initial.pinned = record?.pinned ?? false
        inner = LockedBox(initial)
    }

    /// Pins or unpins the entry; the index learns of it at once when the content information is known.
    func setPinned(_ pinned: Bool) {
        inner.withLock { inner in
            guard inner.pinned != pinned else { return }
            inner.pinned = pinned
            inner.dirty = true
        }
        flush()
    }

    /// Whether the entry is pinned.
    var isPinned: Bool {
        inner.withLock { $0.pinned }
    }

    // MARK: Users

    /// Counts a user (a stream) that keeps the loader open.
    func retain() {
        inner.withLock { $0.users += 1 }
    }

    /// Ends a use; returns whether the loader is now idle (no user, no running request).
    func release() -> Bool {
        inner.withLock { inner in
            inner.users -= 1
            return inner.isIdle
        }
    }

    var isIdle: Bool {
        inner.withLock { $0.isIdle }
    }

    /// Writes the index record and closes the data file. Only for an idle loader.
    func close() {
        flush()
        inner.withLock { inner in
            inner.file?.close()
            inner.file = nil
        }
    }

    // MARK: Content information

    /// The resource's content information: from the index if known, otherwise from the origin (one request,
    /// shared by every caller that asks meanwhile).
    func contentInfo() async throws -> ContentInfo {
        let (known, task) = inner.withLock { inner -> (ContentInfo?, Task<ContentInfo, any Error>?) in
            if let info = inner.state.info { return (info, nil) }
            if let task = inner.infoTask { return (nil, task) }
            let origin = origin
            let url = url
            let task = Task { try await origin.contentInfo(for: url) }
            inner.infoTask = task
            return (nil, task)
        }
        if let known { return known }
        do {
            let fetched = try await task!.value
            let info = inner.withLock { inner -> ContentInfo in
                inner.infoTask = nil
                if inner.state.info == nil {
                    inner.state.info = fetched
                    inner.dirty = true
                }
                return inner.state.info!
            }
            flush()
            return info
        } catch {
            inner.withLock { $0.infoTask = nil }
            throw error
        }
    }

    /// The bytes stored now.
    var storedRanges: ByteRangeSet {
        inner.withLock { $0.state.stored }
    }

    // MARK: Readers

    /// Registers a reader of the bytes before `requestedEnd` (`nil`: to the end).
    func addReader(requestedEnd: Int64?) -> Int {
        inner.withLock { $0.state.addReader(requestedEnd: requestedEnd) }
    }

    /// Unregisters a reader and cancels the requests only it needed; their bytes so far stay stored, and
    /// the index learns of them.
    func removeReader(_ id: Int) {
        let orphans = inner.withLock { inner in
            inner.state.removeReader(id).compactMap { inner.tasks[$0] }
        }
        for task in orphans { task.cancel() }
        flush()
    }

    /// Waits for the running origin requests to end, then brings the index up to date.
    func settle() async {
        let running = inner.withLock { Array($0.tasks.values) }
        for task in running { await task.value }
        flush()
    }

    /// The next bytes for reader `id` at `position`, as soon as they are on disk; `nil` at the end. A
    /// prefetch read starts no origin request while `gate` says a playback read waits.
    func nextChunk(reader id: Int, position: Int64, priority: ReadPriority, gate: PlaybackGate) async throws -> Data? {
        while true {
            try Task.checkCancellation()
            if priority == .prefetch, !inner.withLock({ $0.state.stored.contains(position) }) {
                await gate.waitForPlayback()
                try Task.checkCancellation()
            }
            let (step, seen) = inner.withLock { inner in
                let step = inner.state.step(reader: id, position: position)
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
                let file = try inner.withLock { try $0.openFile(store, key: key) }
                let data = try file.read(range)
                // Bytes read while the resource was being replaced by a new version are not served.
                let valid = inner.withLock { inner in
                    guard inner.state.generation == generation, inner.state.stored.contains(range) else { return false }
                    inner.state.markDelivered(reader: id, generation: generation)
                    return true
                }
                if valid { return data }
            case .wait:
                if priority == .playback { gate.playbackWaits() }
                await waitForChange(reader: id, seen: seen)
                if priority == .playback { gate.playbackResumed() }
            }
        }
    }

    private func waitForChange(reader id: Int, seen: UInt64) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = inner.withLock { inner in
                    if inner.changes != seen || Task.isCancelled { return true }
                    inner.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            inner.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    private func notifyReaders() {
        let waiters = inner.withLock { inner in
            inner.changes &+= 1
            defer { inner.waiters.removeAll() }
            return Array(inner.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Index

    /// Brings the index record up to date with what is on disk: data synced first, then the record replaced.
    func flush() {
        flushLock.lock()
        defer { flushLock.unlock() }
        let snapshot = inner.withLock { inner -> (EntryRecord, EntryFile?)? in
            guard let info = inner.state.info, inner.dirty else { return nil }
            inner.dirty = false
            inner.unflushedBytes = 0
            let record = EntryRecord(
                url: CacheKeyPolicy.displayURL(for: url), info: info, ranges: inner.state.stored,
                created: inner.created, lastAccess: Date(), pinned: inner.pinned)
            return (record, inner.file)
        }
        guard let (record, file) = snapshot else { return }
        file?.synchronize()
        try? store.save(record, key: key)
    }

    /// Drops every stored byte and the index record, for `spool rm` on a resource in use.
    func removeAll() {
        dropStoredVersion(exceptFetch: nil)
    }
}

// MARK: - Fetching

extension ResourceLoader {
    /// Runs request `id` until it has delivered its range, is cancelled or fails for good.
    private func runFetch(_ id: Int) async {
        var failuresInARow = 0
        while true {
            let next = inner.withLock { inner in
                inner.state.remaining(of: id).map { ($0, inner.state.info?.rangeValidator) }
            }
            guard let (range, validator) = next else { return finishFetch(id, failure: nil) }
            var progressed = false
            do {
                let response = try await origin.read(OriginReadRequest(url: url, range: range, validator: validator))
                try absorb(response, requested: range.lowerBound, fetch: id)
                var offset = response.offset
                for try await chunk in response.body {
                    let more = try store(chunk, at: offset, fetch: id)
                    offset += Int64(chunk.count)
                    progressed = progressed || !chunk.isEmpty
                    notifyReaders()
                    if !more { break }
                }
                guard let left = inner.withLock({ $0.state.remaining(of: id) }), !Task.isCancelled else {
                    return finishFetch(id, failure: nil)
                }
                let expected = response.offset == range.lowerBound ? range.upperBound : response.info.length
                throw SpoolError.truncatedBody(expected: expected - response.offset, received: left.lowerBound - response.offset)
            } catch {
                if error is CancellationError || Task.isCancelled { return finishFetch(id, failure: nil) }
                if case .rangeNotSatisfiable(_, let length) = error as? SpoolError, length != inner.withLock({ $0.state.info?.length }) {
                    // The resource shrank or grew: nothing stored can be trusted to match it.
                    dropStoredVersion(exceptFetch: id)
                    return finishFetch(id, failure: SpoolError.resourceChanged)
                }
                failuresInARow = progressed ? 1 : failuresInARow + 1
                guard (error as? SpoolError)?.isTransient == true, failuresInARow <= policy.retryLimit else {
                    return finishFetch(id, failure: error)
                }
                let delay = policy.retryDelay * Double(1 << (failuresInARow - 1))
                do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch { return finishFetch(id, failure: nil) }
            }
        }
    }

    /// Checks a response's version; a new one replaces the stored bytes before any of its own are written.
    private func absorb(_ response: OriginReadResponse, requested: Int64, fetch id: Int) throws {
        let cancelled = try inner.withLock { inner -> [Task<Void, Never>] in
            let before = inner.state.info
            guard let others = inner.state.absorb(
                response.info, servedFrom: response.offset, requested: requested, fetch: id)
            else {
                if inner.state.info != before { inner.dirty = true }
                return []
            }
            try persistEmptyVersion(&inner)
            return others.compactMap { inner.tasks[$0] }
        }
        for task in cancelled { task.cancel() }
        notifyReaders()
    }

    private func dropStoredVersion(exceptFetch id: Int?) {
        let cancelled = inner.withLock { inner in
            let ids = inner.state.dropVersion()
            try? persistEmptyVersion(&inner)
            return ids.filter { $0 != id }.compactMap { inner.tasks[$0] }
        }
        for task in cancelled { task.cancel() }
        notifyReaders()
    }

    /// After a version change: the record stops claiming old bytes before the file loses them or new ones
    /// are written over them, so no crash can leave a record that vouches for mixed bytes.
    private func persistEmptyVersion(_ inner: inout Inner) throws {
        if let info = inner.state.info {
            let record = EntryRecord(
                url: CacheKeyPolicy.displayURL(for: url), info: info, ranges: ByteRangeSet(),
                created: inner.created, lastAccess: Date(), pinned: inner.pinned)
            try store.save(record, key: key)
        } else {
            store.remove(key: key)
            inner.file?.close()
            inner.file = nil
        }
        try inner.openFile(store, key: key).truncate(to: 0)
    }

    /// Writes the parts of `chunk` (at resource `offset`) that are not stored yet; returns whether request
    /// `id` wants more.
    private func store(_ chunk: Data, at offset: Int64, fetch id: Int) throws -> Bool {
        let range = offset..<(offset + Int64(chunk.count))
        let (more, flushDue) = try inner.withLock { inner -> (Bool, Bool) in
            guard let parts = inner.state.unstoredParts(of: range, fetch: id) else { return (false, false) }
            if !parts.isEmpty {
                let file = try inner.openFile(store, key: key)
                for part in parts {
                    let start = chunk.startIndex + Int(part.lowerBound - offset)
                    try file.write(chunk[start..<(start + Int(part.upperBound - part.lowerBound))], at: part.lowerBound)
                }
            }
            let more = inner.state.didStore(range, fetch: id)
            inner.unflushedBytes += Int64(chunk.count)
            inner.dirty = true
            return (more, inner.unflushedBytes >= policy.indexInterval)
        }
        if flushDue { flush() }
        return more
    }

    private func finishFetch(_ id: Int, failure: (any Error)?) {
        inner.withLock { inner in
            inner.state.finishFetch(id, failure: failure)
        }
        flush()
        let idle = inner.withLock { inner in
            inner.tasks[id] = nil
            return inner.isIdle
        }
        notifyReaders()
        if idle { onIdle(self) }
    }
}
