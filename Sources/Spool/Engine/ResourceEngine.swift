import Foundation

/// Loads one resource: serves readers from the data file, fetches what is missing from the origin in shared,
/// bounded requests, writes it through to disk and wakes the readers waiting for it.
///
/// Decisions live in `EngineState`; the driver that carries them out is split by job, each part sharing the
/// entry's `EntryContext` (its identity and the state its one lock guards): `FetchRunner` (origin requests),
/// `ChunkWriter` (writes, with `VersionReset`), `StoredReader` (reads), `SliceLender` (file slices) and
/// `IndexWriter` (the index record). This type opens and closes the entry, steps readers (`+Readers`) and
/// answers the cache.
final class ResourceEngine: Sendable {
    /// Tells this engine apart from an earlier or later one of the same entry.
    let id: Int
    let context: EntryContext
    let index: IndexWriter
    let writer: ChunkWriter
    let lender: SliceLender
    let reader: StoredReader
    let fetcher: FetchRunner
    /// Returns once an earlier engine of the same entry has closed, so that this one reads what it left.
    private let afterEarlierClose: @Sendable () async -> Void

    var key: String { context.key }
    var url: URL { context.url }
    var origin: any Origin { context.origin }
    var locked: LockedBox<LockedEntry> { context.locked }
    var environment: EngineEnvironment { context.environment }
    var policy: FetchPolicy { context.policy }

    /// An engine for the resource at `url`, stored under `key`; it reads nothing from disk until `open()`.
    /// `onIdle` runs with `id` when its last request ends with no user left.
    init(
        id: Int, key: String, url: URL, origin: any Origin, environment: EngineEnvironment,
        afterEarlierClose: @escaping @Sendable () async -> Void, onIdle: @escaping @Sendable (Int) -> Void
    ) {
        self.id = id
        self.afterEarlierClose = afterEarlierClose
        context = EntryContext(key: key, url: url, origin: origin, environment: environment) { onIdle(id) }
        index = IndexWriter(context: context)
        writer = ChunkWriter(context: context, index: index)
        lender = SliceLender(context: context)
        reader = StoredReader(context: context)
        fetcher = FetchRunner(context: context, writer: writer, lender: lender)
    }

    // MARK: Opening and closing

    /// Reads the index record and opens the data file, once, on `BlockingIO`; every other caller waits for
    /// the first. Everything that reads the state awaits this first. The caller that opens gives the state
    /// `then` as an event with the lock held as soon as what was read is in the state, on the thread that
    /// read it.
    func open(then: (@Sendable (inout LockedEntry) -> Void)? = nil) async {
        let opener = locked.withLock { entry -> Bool? in
            switch entry.opening {
            case .done: return nil
            case .running: return false
            case .notStarted:
                entry.opening = .running([])
                return true
            }
        }
        guard let opener else { return }
        guard opener else {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = locked.withLock { entry -> Bool in
                    guard case .running(let waiters) = entry.opening else { return true }
                    entry.opening = .running(waiters + [continuation])
                    return false
                }
                if ready { continuation.resume() }
            }
            return
        }
        await afterEarlierClose()
        let (key, environment, fetcher) = (key, environment, fetcher)
        let problem = try? await BlockingIO.run { () -> SpoolProblem? in
            let found = EntryOpening(key: key, environment: environment)
            let waiters = fetcher.perform { entry -> [CheckedContinuation<Void, Never>] in
                // A removal while the record was read (`removeAll`) leaves nothing to take in.
                if entry.state.versionNumber == 0 { found.install(in: &entry, policy: environment.policy) }
                defer { entry.opening = .done }
                then?(&entry)
                guard case .running(let waiters) = entry.opening else { return [] }
                return waiters
            }
            for waiter in waiters { waiter.resume() }
            return found.problem
        }
        // Outside every lock: the app's handler may call back into the cache.
        if let problem = problem ?? nil { environment.problems.report(problem) }
    }

    /// Whether `open()` has finished.
    var isOpen: Bool {
        locked.withLock { if case .done = $0.opening { true } else { false } }
    }

    /// Writes the index record and closes the data file, keeping its checked blocks for a reopening. Only
    /// for an idle engine.
    func close() async {
        await index.flush()
        closeFile()
    }

    /// Whether the entry's data file was removed from under the open engine (another process cleared or
    /// evicted it): the engine must serve nothing more from it (`OpenEntries` takes it out of use).
    var wasRemovedElsewhere: Bool {
        locked.withLock { $0.file?.data.isRemoved ?? false }
    }

    /// Closes an engine whose files another process removed, once idle: no record is written (it would
    /// claim bytes of a file that is gone) and its checked blocks are not kept; the file's space is freed.
    func closeRemoved() {
        let file = locked.withLock { entry -> BlockFile? in
            defer { entry.file = nil }
            return entry.file
        }
        environment.checked.forget(key: key)
        file?.close()
    }

    /// `close`, blocking the caller: for a cache dropped without `close()`.
    func closeBlocking() {
        index.flushBlocking()
        closeFile()
    }

    private func closeFile() {
        let (file, kept) = locked.withLock { entry -> (BlockFile?, (Set<Int64>, Data)?) in
            defer { entry.file = nil }
            return (entry.file, entry.state.info == nil ? nil : (entry.state.checks.trusted, entry.salt(key: key)))
        }
        guard let file else { return }
        if let (trusted, salt) = kept {
            environment.checked.keep(trusted, key: key, salt: salt, file: file.data.identity)
        }
        file.close()
    }

    // MARK: Users and pins

    /// Counts a user (a stream) that keeps the engine open.
    func retain() {
        locked.withLock { $0.users += 1 }
    }

    /// Ends a use; returns whether the engine is now idle (no user, no running request).
    func release() -> Bool {
        locked.withLock { entry in
            entry.users -= 1
            return entry.isIdle
        }
    }

    var isIdle: Bool {
        locked.withLock { $0.isIdle }
    }

    /// Pins or unpins the entry; the index learns of it at once when the content information is known.
    func setPinned(_ pinned: Bool) async {
        await open()
        let changed = locked.withLock { $0.state.setPinned(pinned) }
        if changed { await index.flush() }
    }

    /// What eviction needs to know of the entry: its bytes, last access and pin; `nil` until it is open.
    var summary: Evictor.Summary? {
        locked.withLock {
            guard case .done = $0.opening else { return nil }
            return Evictor.Summary(
                bytes: $0.state.stored.byteCount, lastAccess: $0.state.record.lastAccess,
                pinned: $0.state.record.pinned)
        }
    }

    /// The bytes stored now; `nil` until the entry is open.
    var storedRanges: ByteRangeSet? {
        locked.withLock {
            guard case .done = $0.opening else { return nil }
            return $0.state.stored
        }
    }

    // MARK: Content information

    /// Counts a user, as `retain` does, if the entry is open and its content information known; returns that
    /// information. For `SpoolCache.lendStored`, which ends the use with `lendStoredAndRelease`.
    func retainIfKnown() -> ContentInfo? {
        locked.withLock { entry in
            guard case .done = entry.opening, let info = entry.state.info else { return nil }
            entry.users += 1
            return info
        }
    }

    /// Ends the use `retainIfKnown` counted and lends all of `range` as one slice if every byte is stored and
    /// checked (`SliceLender.reserveWholeAndRelease`); returns the slice, if any, the resource's first bytes
    /// if this engine knows them, and whether the engine is now idle.
    func lendStoredAndRelease(
        _ range: Range<Int64>?, of info: ContentInfo, revoke: @escaping @Sendable () -> Void
    ) -> (slice: FileSlice?, fresh: Int64, leadingBytes: Data?, idle: Bool) {
        let (reserved, leadingBytes, recordLags, idle) = lender.reserveWholeAndRelease(
            range, of: info, at: environment.clock.date, revoke: revoke)
        if recordLags { index.flushSoon() }
        let slice = reserved.flatMap { try? lender.complete($0) }
        let fresh = slice == nil ? 0 : reserved?.fresh.byteCount ?? 0
        if let reserved, slice != nil { countServed(reserved.range, fresh: fresh) }
        return (slice, fresh, leadingBytes, idle)
    }

    /// The resource's content information: from the index if known, otherwise from the origin (one request,
    /// shared by every caller that asks meanwhile). An origin that can read before the length is known gets
    /// no `HEAD`: the first range request, from `offset` (where the first reader starts, up to at most `end`,
    /// where it stops), brings the information, and its bytes are kept as any request's are. A player's wait
    /// goes through a `ReadSession` (`contentInfoAndStoredRanges` with its purpose's priority).
    func contentInfo(near offset: Int64 = 0, until end: Int64? = nil) async throws -> ContentInfo {
        try await contentInfoAndStoredRanges(near: offset, until: end, extent: .mayStopEarly).info
    }

    /// `contentInfo`, with the bytes stored before it asked the origin for anything.
    func contentInfoAndStoredRanges(
        near offset: Int64, until end: Int64?, extent: ReadExtent, priority: ReadPriority = .prefetch
    ) async throws -> (info: ContentInfo, storedBefore: ByteRangeSet) {
        let discovery = EngineState.Discovery(offset: offset, end: end, extent: extent, began: environment.clock.uptime)
        // Opening the entry starts the discovery where it ends, on the thread that read the record: a cold
        // read's first request is not sent after a hop back to this task.
        // What was stored is taken where the discovery starts, before its first bytes can land.
        let storedAtOpen = LockedBox<ByteRangeSet?>(nil)
        await open(then: { entry in
            storedAtOpen.withLock { $0 = entry.state.stored }
            entry.state.beginDiscovery(discovery)
        })
        let (known, stored, round, waiter) = fetcher.perform { entry -> (ContentInfo?, ByteRangeSet, Int, Int) in
            let stored = storedAtOpen.withLock { $0 } ?? entry.state.stored
            if let info = entry.state.info { return (info, stored, 0, 0) }
            entry.state.beginDiscovery(discovery)
            entry.nextInfoWaiter += 1
            return (nil, stored, entry.state.discovery.round, entry.nextInfoWaiter)
        }
        if let known { return (known, stored) }
        // No record write here: its sync ran beside the first chunk's write and hand-over (0.35 ms of a 2.5 ms
        // cold first byte on loopback, and a core taken when both are busy). The record follows when the first
        // request ends or has stored `FetchPolicy.indexInterval`; a crash before costs only bytes fetched
        // again. Readers of this process see the state itself.
        let outcome = { (entry: LockedEntry) in entry.state.discoveryOutcome(since: round) }
        // A player waiting for a resource's first answer is a start: reads ahead of playback give way meanwhile,
        // as they do while its first bytes are awaited.
        let gate = environment.gate
        let start = priority == .playback ? gate.playbackWaits(isStart: true) : nil
        defer { if let start { gate.playbackResumed(start) } }
        // A wake-up says only that something changed: look again until there is an outcome. Cancelled, the
        // caller stops waiting; the discovery goes on for the others.
        while true {
            if let found = locked.withLock({ outcome($0) }) { return (try found.get(), stored) }
            try Task.checkCancellation()
            await context.suspend(id: waiter, in: \.infoWaiters) { outcome($0) != nil }
        }
    }
}
