import Foundation

/// Loads one resource: serves readers from the data file, fetches what is missing from the origin in shared,
/// bounded requests, writes it through to disk and wakes the readers waiting for it.
///
/// Decisions live in `LoaderState`; this type performs them (tasks, disk, index) under one lock, so that a
/// write, the claim that it is stored and the version check happen as one step.
final class ResourceLoader: Sendable {
    private struct Inner {
        var state: LoaderState
        var file: BlockFile?
        var created: Date
        var infoTask: Task<ContentInfo, any Error>?
        var tasks: [Int: Task<Void, Never>] = [:]
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Counts state changes, so a reader never sleeps through one that happened before it waited.
        var changes: UInt64 = 0
        var unflushedBytes: Int64 = 0
        /// When the last flush took its snapshot (system uptime: the cache's clock may be a test's).
        var lastFlush: TimeInterval = -.infinity
        /// Whether bytes were written since the last sync; a record that only moves the last access needs none.
        var unsynced = false
        /// The last access the record on disk holds.
        var savedLastAccess: Date = .distantPast
        /// Whether the index record lags behind the state.
        var dirty = false
        /// Whether a background flush is queued and has not started yet.
        var flushQueued = false
        var users = 0
        var pinned = false
        var lastAccess: Date
        /// Where each reader is, so eviction spares the bytes they are about to read.
        var readerPositions: [Int: Int64] = [:]
        /// When each block was last written or read in this process; blocks not in it are older.
        var blockUse: [Int64: Date] = [:]
        var saltCache: (info: ContentInfo, salt: Data)?
        /// The checksums of partial blocks, as the stored ranges are now.
        var edgeSums: EdgeSums = [:]
        /// The record file as this loader last read or wrote it: another stamp means another process wrote.
        var recordStamp: [Int64]?
        /// Blocks whose stored bytes this loader has checked or written itself: read without checking again.
        var trusted = Set<Int64>()
        /// The running checksums of the partial blocks this loader is filling; any other change to a block's
        /// stored bytes drops its entry.
        var hashers: [Int64: BlockHasher] = [:]
        /// Bytes found damaged here: never taken back from another process's record, or a reader could go
        /// round between adopting and rejecting them.
        var distrusted = ByteRangeSet()

        /// No user and nothing running: the loader may be closed.
        var isIdle: Bool { users == 0 && tasks.isEmpty && infoTask == nil }

        mutating func openFile(_ environment: LoaderEnvironment, key: String) throws -> BlockFile {
            if let file { return file }
            let opened = try environment.store.openFile(key: key, codec: environment.codec)
            file = opened
            return opened
        }

        /// The salt of the version the stored bytes belong to.
        mutating func salt(key: String) -> Data {
            guard let info = state.info else { return Data() }
            if let saltCache, saltCache.info == info { return saltCache.salt }
            let salt = BlockLayout.salt(key: key, info: info)
            saltCache = (info, salt)
            return salt
        }
    }

    let key: String
    let url: URL
    let origin: any Origin
    private let environment: LoaderEnvironment
    private var store: DiskStore { environment.store }
    private var policy: FetchPolicy { environment.policy }
    private let inner: LockedBox<Inner>
    /// Held for a whole index write, so one entry's writes never overlap.
    private let flushing = LockedBox(())
    private let onIdle: @Sendable (ResourceLoader) -> Void
    /// What opening the entry found wrong, for the cache to report once it has left its lock: a handler
    /// that calls back into the cache must not find that lock held.
    let problemAtOpening: SpoolProblem?

    /// A loader for the resource at `url`, stored under `key`; `onIdle` runs when its last request ends
    /// with no user left.
    init(
        key: String, url: URL, origin: any Origin, environment: LoaderEnvironment,
        onIdle: @escaping @Sendable (ResourceLoader) -> Void
    ) {
        self.onIdle = onIdle
        self.key = key
        self.url = url
        self.origin = origin
        self.environment = environment
        var record = environment.store.record(key: key)
        var problem: SpoolProblem?
        if let found = record, found.keyCheck != environment.codec.keyCheck {
            // Sealed with another key, or with none: nothing in it can be read; start afresh.
            if !found.ranges.isEmpty { problem = .wrongKey(url: found.url) }
            environment.store.remove(key: key)
            record = nil
        }
        problemAtOpening = problem
        let state = LoaderState(
            policy: environment.policy, info: record?.info, stored: record?.ranges ?? ByteRangeSet())
        var initial = Inner(
            state: state, created: record?.created ?? environment.clock(), lastAccess: environment.clock())
        initial.pinned = record?.pinned ?? false
        initial.edgeSums = record?.edgeSums ?? [:]
        initial.recordStamp = environment.store.recordStamp(key: key)
        initial.savedLastAccess = record?.lastAccess ?? .distantPast
        // Opened now, so the shared lock tells other processes the entry is in use before anything is read.
        if record != nil { _ = try? initial.openFile(environment, key: key) }
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

    /// What eviction needs to know of the entry: its bytes, last access and pin.
    var summary: Evictor.Summary {
        inner.withLock {
            Evictor.Summary(bytes: $0.state.stored.byteCount, lastAccess: $0.lastAccess, pinned: $0.pinned)
        }
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

    /// The clock of the cache.
    var now: Date { environment.clock() }

    // MARK: Content information

    /// The resource's content information: from the index if known, otherwise from the origin (one request,
    /// shared by every caller that asks meanwhile). An origin that can read before the length is known gets
    /// no `HEAD`: the first range request, from `offset` (where the first reader starts, up to at most `end`,
    /// where it stops), brings the information, and its bytes are kept as any request's are.
    func contentInfo(near offset: Int64 = 0, until end: Int64? = nil) async throws -> ContentInfo {
        let (known, task) = inner.withLock { inner -> (ContentInfo?, Task<ContentInfo, any Error>?) in
            if let info = inner.state.info { return (info, nil) }
            if let task = inner.infoTask { return (nil, task) }
            let task = Task { try await self.discoverContentInfo(near: offset, until: end) }
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
            // In the background: the first GET's bytes may already be written, and syncing them here (tens of
            // milliseconds on some disks) would delay the first byte the reader is waiting for.
            flushSoon()
            return info
        } catch {
            inner.withLock { $0.infoTask = nil }
            throw error
        }
    }

    /// Asks the origin for the content information: with a first range request from `offset` where the
    /// origin allows it, otherwise (or when that request cannot tell, as past the end) with its own call.
    private func discoverContentInfo(near offset: Int64, until end: Int64?) async throws -> ContentInfo {
        guard origin.canReadBeforeContentInfo else { return try await origin.contentInfo(for: url) }
        let link = environment.link.estimate(for: url)
        let start = max(0, offset)
        // Until its head arrives nothing else can be asked for: it carries a window and a piece (what the
        // link carries until the requests sent on its head deliver), or `firstRequestSize` for a host
        // nothing is known of.
        let ahead = policy.readAhead(afterConsuming: 0, link: link)
        var size = link.roundTrip == nil ? policy.firstRequestSize : ahead.window + ahead.piece
        if let end, end > start { size = min(size, end - start) }
        let requested = start..<(start + size)
        let (origin, request) = (origin, OriginReadRequest(url: url, range: requested))
        let began = LinkMonitor.now
        var failures = 0
        let response: OriginReadResponse
        while true {
            let sent = LinkMonitor.now
            let newConnection = environment.link.requestSent(url, at: sent)
            do {
                response = try await Deadline.run(within: policy.stallTimeout) { try await origin.read(request) }
                environment.link.responded(url, after: LinkMonitor.now - sent, newConnection: newConnection)
                break
            } catch SpoolError.rangeNotSatisfiable, SpoolError.invalidResponse {
                environment.link.requestEnded(url, reusable: false)
                // Past the end, or an answer without a length: the origin's own call says what there is.
                return try await origin.contentInfo(for: url)
            } catch {
                environment.link.requestEnded(url, reusable: false)
                failures += 1
                guard policy.retries(after: error, failuresInARow: failures, silentFor: LinkMonitor.now - began) else {
                    throw error
                }
                try await Task.sleep(nanoseconds: UInt64(policy.retryWait(attempt: failures) * 1_000_000_000))
            }
        }
        let opening = Result {
            try inner.withLock { inner -> ([Task<Void, Never>], ContentInfo) in
                let opened = inner.state.openDiscovered(
                    response.info, servedFrom: response.offset, requested: requested)
                if !opened.cancelled.isEmpty { try persistEmptyVersion(&inner) }
                inner.dirty = true
                inner.tasks[opened.id] = Task { await self.runFetch(opened.id, opened: response) }
                return (opened.cancelled.compactMap { inner.tasks[$0] }, inner.state.info ?? response.info)
            }
        }
        if case .failure = opening { environment.link.requestEnded(url, reusable: false) }
        let (cancelled, info) = try opening.get()
        for task in cancelled { task.cancel() }
        notifyReaders()
        return info
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
        let now = environment.clock()
        let orphans = inner.withLock { inner in
            inner.readerPositions[id] = nil
            // A read is a use: the entry's last access moves, for least-recently-used eviction.
            inner.lastAccess = now
            // The record learns of reads at most once a second, without a sync (it claims nothing new): a
            // burst of small requests costs one record write, not one each.
            if inner.state.info != nil, now.timeIntervalSince(inner.savedLastAccess) >= 1 { inner.dirty = true }
            return inner.state.removeReader(id).compactMap { inner.tasks[$0] }
        }
        for task in orphans { task.cancel() }
        flushSoon()
    }

    /// Waits for the running origin requests to end, then brings the index up to date.
    func settle() async {
        let running = inner.withLock { Array($0.tasks.values) }
        for task in running { await task.value }
        flush()
    }

    /// The next bytes for reader `id` at `position`, as soon as they are on disk; `nil` at the end. A
    /// prefetch read starts no origin request while `gate` says a playback read waits. A reader that has
    /// delivered bytes from disk only awaits `consumer` (when given) before its first origin request.
    func nextChunk(
        reader id: Int, position: Int64, priority: ReadPriority, gate: PlaybackGate,
        consumer: (@Sendable () async throws -> Void)? = nil
    ) async throws -> Data? {
        while true {
            try Task.checkCancellation()
            let link = environment.link.estimate(for: url)
            if priority == .prefetch, !inner.withLock({ $0.state.stored.contains(position) }) {
                await gate.waitForPlayback()
                try Task.checkCancellation()
            }
            if let consumer, inner.withLock({ $0.state.mustAskConsumer(reader: id, position: position, link: link) }) {
                try await consumer()
                inner.withLock { $0.state.consumerCaughtUp(reader: id) }
                continue
            }
            let (step, seen) = inner.withLock { inner -> (LoaderState.Step, UInt64) in
                inner.readerPositions[id] = position
                var step = inner.state.step(reader: id, position: position, link: link)
                if case .wait(let starts) = step, !starts.isEmpty, adoptStoredElsewhere(&inner) {
                    // Another process stored bytes since: take them rather than fetch them again.
                    for start in starts { inner.state.finishFetch(start.id, failure: nil) }
                    step = inner.state.step(reader: id, position: position, link: link)
                }
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
                // Read and verified under the lock, so no write can extend a block between the two.
                let outcome = inner.withLock { inner -> Result<Data?, any Error> in
                    guard inner.state.generation == generation, inner.state.stored.contains(range) else {
                        return .success(nil)
                    }
                    do {
                        let file = try inner.openFile(environment, key: key)
                        let data = try file.read(
                            range, present: inner.state.stored, edges: inner.edgeSums, trusted: &inner.trusted,
                            length: inner.state.info?.length ?? 0, salt: inner.salt(key: key))
                        inner.state.markDelivered(reader: id, generation: generation)
                        inner.readerPositions[id] = range.upperBound
                        let now = environment.clock()
                        for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
                        return .success(data)
                    } catch let damage as BlockDamage {
                        forget(damage.ranges, in: &inner)
                        return .failure(damage)
                    } catch {
                        return .failure(error)
                    }
                }
                switch outcome {
                case .success(let data?): return data
                case .success(nil): continue
                case .failure(let damage as BlockDamage):
                    for range in damage.ranges {
                        environment.problems.report(
                            .corruptData(url: CacheKeyPolicy.displayURL(for: url), range: range))
                    }
                    notifyReaders()
                case .failure(let error): throw error
                }
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

    /// Queues `flush()` on a background queue, unless one is queued already: a sync can take a disk's
    /// write time for all the bytes written since the last one, and a download must not stop for it.
    /// `close()` and `settle()` flush in place, so nothing stays unwritten when the cache closes.
    private func flushSoon() {
        let queue = inner.withLock { inner -> Bool in
            guard inner.dirty, !inner.flushQueued else { return false }
            inner.flushQueued = true
            return true
        }
        guard queue else { return }
        Self.flushQueue.async {
            self.inner.withLock { $0.flushQueued = false }
            self.flush()
        }
    }

    /// The shortest time between two flushes a download asks for.
    private static let minimumFlushInterval: TimeInterval = 0.25

    /// Where background flushes run: one at a time for the whole process, off the cooperative thread pool,
    /// which blocking syncs would starve.
    private static let flushQueue = DispatchQueue(label: "Spool.ResourceLoader.flush", qos: .utility)

    /// Brings the index record up to date with what is on disk: data synced first, then the record replaced.
    func flush() {
        flushing.withLock { _ in flushNow() }
    }

    /// `flush`, with the entry's flush lock held.
    private func flushNow() {
        // The claims are taken first, with the edge checksums of that moment, then the bytes they name are
        // synced, then the record is saved: it never claims a byte that is not on disk, and bytes written
        // after it was taken never change what it vouches for.
        let snapshot = inner.withLock { inner -> (EntryRecord, BlockFile?, ByteRangeSet)? in
            guard let info = inner.state.info, inner.dirty else { return nil }
            inner.dirty = false
            inner.unflushedBytes = 0
            inner.lastFlush = ProcessInfo.processInfo.systemUptime
            inner.savedLastAccess = inner.lastAccess
            let record = EntryRecord(
                url: CacheKeyPolicy.displayURL(for: url), info: info, ranges: inner.state.stored,
                created: inner.created, lastAccess: inner.lastAccess, pinned: inner.pinned,
                keyCheck: environment.codec.keyCheck, edgeSums: inner.edgeSums)
            let needsSync = inner.unsynced
            inner.unsynced = false
            return (record, needsSync ? inner.file : nil, inner.distrusted)
        }
        guard let (taken, syncing, distrusted) = snapshot else { return }
        var record = taken
        syncing?.synchronize()
        let file = inner.withLock { $0.file }
        // Other processes may fill the same entry: under a lock they respect, their claims are merged in
        // rather than overwritten.
        file?.lockRecord()
        defer { file?.unlockRecord() }
        if let theirs = store.record(key: key), theirs.keyCheck == record.keyCheck,
            !theirs.info.isDifferentVersion(from: record.info)
        {
            // Bytes this loader dropped (damaged, evicted) stay dropped even if the record still names them.
            var offered = theirs.ranges
            for range in distrusted.ranges { offered.remove(range) }
            let merged = EntryClaims(ranges: record.ranges, edges: record.edgeSums)
                .merged(with: EntryClaims(ranges: offered, edges: theirs.edgeSums), length: record.info.length)
            record.ranges = merged.ranges
            record.edgeSums = merged.edges
            record.lastAccess = max(record.lastAccess, theirs.lastAccess)
            record.created = min(record.created, theirs.created)
        }
        // A new version may have replaced this one meanwhile; its empty record must stay.
        guard inner.withLock({ $0.state.info == record.info }) else { return }
        // Only a record that claims newly written bytes needs to survive a crash; one that moves the last
        // access or names the version may be lost, the record before it claims nothing untrue.
        try? store.save(record, key: key, durable: syncing != nil)
        let stamp = store.recordStamp(key: key)
        inner.withLock { $0.recordStamp = stamp }
    }

    /// Adds the bytes another process stored since this loader last looked, if they are of the same
    /// version and not found damaged here; returns whether there were any.
    private func adoptStoredElsewhere(_ inner: inout Inner) -> Bool {
        // Unchanged since this loader read or wrote it: nothing new, and no need to read it.
        let stamp = store.recordStamp(key: key)
        guard stamp != inner.recordStamp else { return false }
        inner.recordStamp = stamp
        guard let info = inner.state.info, let theirs = store.record(key: key),
            theirs.keyCheck == environment.codec.keyCheck, !theirs.info.isDifferentVersion(from: info)
        else { return false }
        var offered = theirs.ranges
        for range in inner.distrusted.ranges { offered.remove(range) }
        let merged = EntryClaims(ranges: inner.state.stored, edges: inner.edgeSums)
            .merged(with: EntryClaims(ranges: offered, edges: theirs.edgeSums), length: info.length)
        guard merged.ranges != inner.state.stored else { return false }
        inner.state.stored = merged.ranges
        inner.edgeSums = merged.edges
        inner.hashers.removeAll()
        return true
    }

    /// Gives up at least `bytes` of stored blocks if it can, least recently used first, sparing what readers
    /// are about to read (up to a largest piece ahead of each) and what requests are filling. Returns the
    /// bytes given up.
    func shed(_ bytes: Int64) -> Int64 {
        let freed = inner.withLock { inner -> Int64 in
            guard let info = inner.state.info, !inner.pinned, bytes > 0 else { return 0 }
            var spared = ByteRangeSet()
            for position in inner.readerPositions.values {
                spared.insert(position..<min(info.length, position + policy.maximumPieceSize))
            }
            for fetch in inner.state.fetches.values where fetch.position < fetch.end {
                spared.insert(fetch.position..<fetch.end)
            }
            var candidates = Set<Int64>()
            for range in inner.state.stored.ranges where !range.isEmpty {
                for block in BlockLayout.blocks(in: range) { candidates.insert(block) }
            }
            let order =
                candidates
                .filter { spared.intersection(BlockLayout.range(of: $0)).isEmpty }
                .sorted { (inner.blockUse[$0] ?? .distantPast, $0) < (inner.blockUse[$1] ?? .distantPast, $1) }
            var freed: Int64 = 0
            for block in order where freed < bytes {
                let present = inner.state.stored.intersection(BlockLayout.range(of: block))
                freed += present.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
                forget(present, in: &inner)
                inner.blockUse[block] = nil
            }
            return freed
        }
        if freed > 0 {
            flush()
            notifyReaders()
        }
        return freed
    }

    /// Drops every stored byte and the index record, for `spool rm` on a resource in use.
    func removeAll() {
        dropStoredVersion(exceptFetch: nil)
    }
}

// MARK: - Fetching

extension ResourceLoader {
    /// Runs request `id` until it has delivered its range, is cancelled or fails for good; `opened` is its
    /// response when it was sent before the loader knew the resource (see `discoverContentInfo`).
    ///
    /// A response that delivers nothing for `stallTimeout` is dropped and the request sent again from its
    /// first missing byte. Failures that say the link went silent (a stall, a timeout) are retried for
    /// `outageTolerance` since the last byte; others `retryLimit` times in a row without a byte.
    private func runFetch(_ id: Int, opened: OriginReadResponse? = nil) async {
        var opened = opened
        // Whether a request is out, for the link monitor's count of connections; the first response's
        // request was counted when `discoverContentInfo` sent it.
        var sending = opened != nil
        var failuresInARow = 0
        var lastProgress = LinkMonitor.now
        while true {
            let next = inner.withLock { inner in
                inner.state.remaining(of: id).map { ($0, inner.state.info?.rangeValidator) }
            }
            guard let (range, validator) = next else {
                if sending { environment.link.requestEnded(url, reusable: false) }
                return finishFetch(id, failure: nil)
            }
            let progress = LockedBox(false)
            do {
                let response: OriginReadResponse
                if let first = opened {
                    response = first
                    opened = nil
                } else {
                    let sent = LinkMonitor.now
                    let (origin, request) = (origin, OriginReadRequest(url: url, range: range, validator: validator))
                    let newConnection = environment.link.requestSent(url, at: sent)
                    sending = true
                    // A response head that does not come is a stall too (a silent link, a server that hangs).
                    response = try await Deadline.run(within: policy.stallTimeout) { try await origin.read(request) }
                    environment.link.responded(url, after: LinkMonitor.now - sent, newConnection: newConnection)
                    try absorb(response, requested: range.lowerBound, fetch: id)
                }
                let reached = try await receive(response, fetch: id) { progress.withLock { $0 = true } }
                let expected = response.offset == range.lowerBound ? range.upperBound : response.info.length
                // A body read to its end leaves its connection open for the next request.
                environment.link.requestEnded(url, reusable: reached >= expected)
                sending = false
                guard let left = inner.withLock({ $0.state.remaining(of: id) }), !Task.isCancelled else {
                    return finishFetch(id, failure: nil)
                }
                throw SpoolError.truncatedBody(
                    expected: expected - response.offset, received: left.lowerBound - response.offset)
            } catch {
                if sending { environment.link.requestEnded(url, reusable: false) }
                sending = false
                if error is CancellationError || Task.isCancelled { return finishFetch(id, failure: nil) }
                if case .rangeNotSatisfiable(_, let length) = error as? SpoolError,
                    length != inner.withLock({ $0.state.info?.length })
                {
                    // The resource shrank or grew: nothing stored can be trusted to match it.
                    dropStoredVersion(exceptFetch: id)
                    return finishFetch(id, failure: SpoolError.resourceChanged)
                }
                let now = LinkMonitor.now
                if progress.withLock({ $0 }) {
                    failuresInARow = 1
                    lastProgress = now
                } else {
                    failuresInARow += 1
                }
                guard policy.retries(after: error, failuresInARow: failuresInARow, silentFor: now - lastProgress) else {
                    return finishFetch(id, failure: error)
                }
                let delay = policy.retryWait(attempt: failuresInARow)
                do { try await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000)) } catch {
                    return finishFetch(id, failure: nil)
                }
            }
        }
    }

    /// Stores the body of `response` for request `id` until the request has what it asked for. Fails with
    /// `SpoolError.timedOut` when no byte arrives for `stallTimeout`; `onBytes` is told of every chunk.
    /// Returns the resource offset where the body stopped being read.
    private func receive(
        _ response: OriginReadResponse, fetch id: Int, onBytes: @escaping @Sendable () -> Void
    ) async throws -> Int64 {
        let url = url
        let link = environment.link
        let stallTimeout = policy.stallTimeout
        let lastByte = LockedBox(LinkMonitor.now)
        link.bodyStarted(url, at: LinkMonitor.now)
        defer { link.bodyEnded(url, at: LinkMonitor.now) }
        return try await withThrowingTaskGroup(of: Int64.self) { group in
            group.addTask {
                var offset = response.offset
                for try await chunk in response.body {
                    let now = LinkMonitor.now
                    lastByte.withLock { $0 = now }
                    link.received(chunk.count, from: url, at: now)
                    let more = try self.store(chunk, at: offset, fetch: id)
                    offset += Int64(chunk.count)
                    if !chunk.isEmpty { onBytes() }
                    self.notifyReaders()
                    if !more { return offset }
                }
                return offset
            }
            group.addTask {
                // The watchdog: checks a few times per timeout whether bytes still come.
                let tick = UInt64(max(0.01, stallTimeout / 4) * 1_000_000_000)
                while true {
                    try await Task.sleep(nanoseconds: tick)
                    if LinkMonitor.now - lastByte.withLock({ $0 }) > stallTimeout {
                        throw SpoolError.timedOut
                    }
                }
            }
            // The body ends first unless the watchdog throws; it never returns.
            let reached = try await group.next() ?? response.offset
            group.cancelAll()
            return reached
        }
    }

    /// Checks a response's version; a new one replaces the stored bytes before any of its own are written.
    private func absorb(_ response: OriginReadResponse, requested: Int64, fetch id: Int) throws {
        let cancelled = try inner.withLock { inner -> [Task<Void, Never>] in
            let before = inner.state.info
            guard
                let others = inner.state.absorb(
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
                created: inner.created, lastAccess: inner.lastAccess, pinned: inner.pinned,
                keyCheck: environment.codec.keyCheck)
            try store.save(record, key: key)
        } else {
            store.remove(key: key)
            inner.file?.close()
            inner.file = nil
        }
        inner.blockUse.removeAll()
        inner.edgeSums.removeAll()
        inner.trusted.removeAll()
        inner.hashers.removeAll()
        inner.distrusted = ByteRangeSet()
        try inner.openFile(environment, key: key).truncate()
    }

    /// Stops claiming `ranges` (damaged or evicted): their blocks' slots are cleared, readers that need
    /// them fetch them again.
    private func forget(_ ranges: [Range<Int64>], in inner: inout Inner) {
        for range in ranges where !range.isEmpty {
            for block in BlockLayout.blocks(in: range) {
                inner.edgeSums[block] = nil
                inner.trusted.remove(block)
                inner.hashers[block] = nil
            }
            inner.state.stored.remove(range)
            try? inner.file?.discard(range)
            inner.distrusted.insert(range)
        }
        inner.dirty = true
        inner.changes &+= 1
    }

    /// Writes the parts of `chunk` (at resource `offset`) that are not stored yet; returns whether request
    /// `id` wants more.
    private func store(_ chunk: Data, at offset: Int64, fetch id: Int) throws -> Bool {
        let range = offset..<(offset + Int64(chunk.count))
        let outcome = inner.withLock {
            inner -> Result<(more: Bool, flushDue: Bool, damaged: [Range<Int64>]), any Error> in
            var damaged: [Range<Int64>] = []
            do {
                // Damage found on the way un-stores bytes, some of which this chunk may carry: go round
                // until every byte of the chunk that is not stored has been written.
                while true {
                    guard let parts = inner.state.unstoredParts(of: range, fetch: id) else {
                        return .success((false, false, damaged))
                    }
                    if parts.isEmpty { break }
                    let file = try inner.openFile(environment, key: key)
                    let salt = inner.salt(key: key)
                    var found: [Range<Int64>] = []
                    for part in parts {
                        let start = chunk.startIndex + Int(part.lowerBound - offset)
                        let bytes = chunk[start..<(start + Int(part.upperBound - part.lowerBound))]
                        found += try file.write(
                            bytes, at: part.lowerBound, present: &inner.state.stored, edges: &inner.edgeSums,
                            trusted: &inner.trusted, hashers: &inner.hashers, length: inner.state.info?.length ?? 0,
                            salt: salt)
                    }
                    let now = environment.clock()
                    for block in BlockLayout.blocks(in: range) { inner.blockUse[block] = now }
                    if found.isEmpty { break }
                    // Already out of `stored`; their blocks' slots are cleared.
                    for range in found { try? file.discard(range) }
                    inner.dirty = true
                    damaged += found
                }
            } catch {
                return .failure(error)
            }
            let more = inner.state.didStore(range, fetch: id)
            inner.unflushedBytes += Int64(chunk.count)
            inner.dirty = true
            inner.unsynced = true
            // A fast download would sync every few milliseconds: at most a few times a second is enough to
            // keep what a crash costs small (bytes not yet claimed are fetched again, never served wrong).
            let flushDue =
                inner.unflushedBytes >= policy.indexInterval
                && ProcessInfo.processInfo.systemUptime - inner.lastFlush >= Self.minimumFlushInterval
            return .success((more, flushDue, damaged))
        }
        switch outcome {
        case .failure(let error):
            if case .storage(let reason) = error as? SpoolError { environment.problems.report(.storageFailed(reason)) }
            throw error
        case .success(let result):
            environment.problems.storageWorked(Int64(chunk.count))
            for range in result.damaged {
                environment.problems.report(.corruptData(url: CacheKeyPolicy.displayURL(for: url), range: range))
            }
            environment.didWrite(Int64(chunk.count))
            if result.flushDue { flushSoon() }
            return result.more
        }
    }

    private func finishFetch(_ id: Int, failure: (any Error)?) {
        inner.withLock { inner in
            inner.state.finishFetch(id, failure: failure)
        }
        flushSoon()
        let idle = inner.withLock { inner in
            inner.tasks[id] = nil
            return inner.isIdle
        }
        notifyReaders()
        if idle { onIdle(self) }
    }
}
