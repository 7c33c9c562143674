import Foundation

/// Loads one resource: serves readers from the data file, fetches what is missing from the origin in shared,
/// bounded requests, writes it through to disk and wakes the readers waiting for it.
///
/// Decisions live in `EngineState`; this type performs them (tasks, disk, index) under one lock, so that a
/// write, the claim that it is stored and the version check happen as one step. Its jobs are in one file each:
/// readers (`+Readers`), origin requests (`+Fetching`), the index record (`+Index`) and the locked state
/// (`+Inner`).
final class ResourceEngine: Sendable {
    let key: String
    let url: URL
    let origin: any Origin
    let environment: EngineEnvironment
    var store: DiskStore { environment.store }
    var policy: FetchPolicy { environment.policy }
    let inner: LockedBox<Inner>
    /// Held for a whole index write, so one entry's writes never overlap.
    let flushing = LockedBox(())
    /// Where this entry's downloaded bytes are written and hashed, one chunk at a time (see `store`).
    let writeQueue = BlockingIO.serialQueue(label: "Spool.ResourceEngine.writes")
    let onIdle: @Sendable (ResourceEngine) -> Void
    /// What opening the entry found wrong, for the cache to report once it has left its lock: a handler
    /// that calls back into the cache must not find that lock held.
    let problemAtOpening: SpoolProblem?

    /// An engine for the resource at `url`, stored under `key`; `onIdle` runs when its last request ends
    /// with no user left.
    init(
        key: String, url: URL, origin: any Origin, environment: EngineEnvironment,
        onIdle: @escaping @Sendable (ResourceEngine) -> Void
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
        let state = EngineState(
            policy: environment.policy, info: record?.info, stored: record?.ranges ?? ByteRangeSet())
        var initial = Inner(
            state: state, created: record?.created ?? environment.clock(), lastAccess: environment.clock())
        initial.pinned = record?.pinned ?? false
        initial.edgeSums = record?.edgeSums ?? [:]
        initial.recordStamp = environment.store.recordStamp(key: key)
        initial.savedLastAccess = record?.lastAccess ?? .distantPast
        // Opened now, so the shared lock tells other processes the entry is in use before anything is read.
        if let record, let file = try? initial.openFile(environment, key: key) {
            // Checked before this entry last closed, in this process, for this version and this very file, and
            // complete: a partial block may have gained another process's bytes since, which nobody here has
            // checked.
            let kept = environment.checked.take(key: key, salt: initial.salt(key: key), file: file.data.identity)
            initial.trusted = kept.filter {
                record.ranges.contains(BlockLayout.range(of: $0, length: record.info.length))
            }
        }
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

    /// Counts a user (a stream) that keeps the engine open.
    func retain() {
        inner.withLock { $0.users += 1 }
    }

    /// Ends a use; returns whether the engine is now idle (no user, no running request).
    func release() -> Bool {
        inner.withLock { inner in
            inner.users -= 1
            return inner.isIdle
        }
    }

    var isIdle: Bool {
        inner.withLock { $0.isIdle }
    }

    /// Writes the index record and closes the data file. Only for an idle engine.
    func close() {
        flush()
        inner.withLock { inner in
            if let file = inner.file, inner.state.info != nil {
                environment.checked.keep(
                    inner.trusted, key: key, salt: inner.salt(key: key), file: file.data.identity)
            }
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
                if inner.state.learn(fetched) { inner.dirty = true }
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

    /// The bytes stored now.
    var storedRanges: ByteRangeSet {
        inner.withLock { $0.state.stored }
    }
}
