import Foundation

/// A disk cache that plays while it fills: reads return cached bytes from disk and fetch missing ones from
/// the origin, writing them through as they arrive.
///
/// ```swift
/// let cache = try SpoolCache(configuration: SpoolConfiguration(directory: cacheDirectory))
/// for try await chunk in cache.read(url, from: 1_000_000, length: 65_536) {
///     player.append(chunk)
/// }
/// ```
///
/// Readers of the same bytes at the same time share one origin request. One `SpoolCache` per directory
/// and process.
public final class SpoolCache: Sendable {
    /// The configuration the cache was opened with.
    public let configuration: SpoolConfiguration
    private let store: DiskStore
    private let engines = LockedBox<[String: ResourceEngine]>([:])
    private let gate = PlaybackGate()
    private let codec: any BlockCodec
    private let problems: ProblemReporter
    private let evictor: Evictor
    private let linkMonitor = LinkMonitor()
    private let checked = CheckedBlocks()

    /// Opens (creating if needed) the cache in `configuration.directory`. Reads no data file; with limits,
    /// reads the index records to apply them.
    public init(configuration: SpoolConfiguration = SpoolConfiguration()) throws {
        self.configuration = configuration
        store = try DiskStore(directory: configuration.directory)
        codec = try configuration.encryptionKey.map(SealedCodec.init(key:)) ?? ChecksumCodec()
        problems = ProblemReporter(handler: configuration.onProblem)
        evictor = Evictor(limits: configuration.limits, store: store, clock: configuration.clock)
        enforceLimits()
    }

    /// The bytes of the resource at `url` from `offset`, `length` of them or (`nil`) to its end.
    public func read(_ url: URL, from offset: Int64 = 0, length: Int64? = nil) -> ByteStream {
        read(Resource(url: url), from: offset, length: length)
    }

    /// The bytes of `resource` from `offset`, `length` of them or (`nil`) to its end. A `.prefetch` read
    /// starts no origin request while a `.playback` read of this cache waits for origin bytes.
    ///
    /// `consumer` is for a caller that passes the bytes on through buffers it cannot see into, such as a
    /// socket, and so runs ahead of whoever takes them in the end. A read that has delivered bytes from disk
    /// only awaits it once, before its first origin request; it returns when the bytes delivered so far have
    /// been taken, or throws, ending the read with its error, when nobody will take more. Without it, a
    /// player abandoning a read served from the cache would still make the origin send bytes it never plays.
    /// See <doc:ReadingThroughBuffers>.
    public func read(
        _ resource: Resource, from offset: Int64 = 0, length: Int64? = nil, priority: ReadPriority = .playback,
        consumer: (@Sendable () async throws -> Void)? = nil
    ) -> ByteStream {
        ByteStream(
            acquire: { self.acquire(resource) }, offset: offset, length: length, priority: priority, gate: gate,
            consumer: consumer,
            release: { [weak self] engine in self?.release(engine) ?? engine.close() })
    }

    /// Caches `length` bytes (or to the end) of `resource` from `offset` without delivering them, giving way
    /// to playback reads; shares origin requests with any read of the same bytes. Returns the bytes covered.
    @discardableResult
    public func prefetch(_ resource: Resource, from offset: Int64 = 0, length: Int64? = nil) async throws -> Int64 {
        var count: Int64 = 0
        for try await chunk in read(resource, from: offset, length: length, priority: .prefetch) {
            count += Int64(chunk.count)
        }
        return count
    }

    /// The content information of `resource`: from the cache when known, else from the origin. An HTTP
    /// origin is asked with a first range request rather than a `HEAD`, and the bytes it brings are cached:
    /// `firstRead` says which bytes will be read first (by default the start of the resource), so that the
    /// request brings those.
    public func contentInfo(for resource: Resource, firstRead: Range<Int64>? = nil) async throws -> ContentInfo {
        let engine = acquire(resource)
        defer { release(engine) }
        return try await engine.contentInfo(near: firstRead?.lowerBound ?? 0, until: firstRead?.upperBound)
    }

    /// The content information of the resource at `url` (see `contentInfo(for:firstRead:)`).
    public func contentInfo(for url: URL, firstRead: Range<Int64>? = nil) async throws -> ContentInfo {
        try await contentInfo(for: Resource(url: url), firstRead: firstRead)
    }

    /// The cache key of `resource`.
    public func key(for resource: Resource) -> String {
        resource.cacheKey.map { CacheKeyPolicy.digest("custom:" + $0) }
            ?? configuration.cacheKeyPolicy.key(for: resource.url)
    }

    /// The entry of `resource`, if the cache knows it.
    public func entry(for resource: Resource) -> CacheEntry? {
        entry(key: key(for: resource))
    }

    /// The entry of the resource at `url`, if the cache knows it.
    public func entry(for url: URL) -> CacheEntry? {
        entry(for: Resource(url: url))
    }

    /// The bytes of `resource` on disk now: from the reader in progress if there is one (no index write),
    /// else from the index.
    public func cachedRanges(for resource: Resource) -> ByteRangeSet {
        let key = key(for: resource)
        if let engine = engines.withLock({ $0[key] }) { return engine.storedRanges }
        return store.record(key: key)?.ranges ?? ByteRangeSet()
    }

    /// Every entry, most recently used first.
    public func entries() -> [CacheEntry] {
        store.keys().compactMap(entry(key:)).sorted { $0.lastAccess > $1.lastAccess }
    }

    /// Deletes the entry of `resource`. Reads of it in progress in this process end with an error; later
    /// reads fetch it anew.
    public func remove(_ resource: Resource) {
        let key = key(for: resource)
        engines.withLock { $0[key] }?.removeAll()
        store.remove(key: key)
        checked.forget(key: key)
    }

    /// Deletes the entry of the resource at `url`.
    public func remove(_ url: URL) {
        remove(Resource(url: url))
    }

    /// Deletes every entry.
    public func removeAll() {
        for key in store.keys() {
            engines.withLock { $0[key] }?.removeAll()
            store.remove(key: key)
            checked.forget(key: key)
        }
    }

    /// Pins `resource` for offline use and downloads all of it (giving way to playback reads); pinned
    /// entries are never evicted. Returns when every byte is cached.
    public func pin(_ resource: Resource) async throws {
        let engine = acquire(resource)
        defer { release(engine) }
        engine.setPinned(true)
        try await prefetch(resource)
        engine.flush()
    }

    /// Pins the resource at `url`.
    public func pin(_ url: URL) async throws {
        try await pin(Resource(url: url))
    }

    /// Makes `resource` evictable again; its bytes stay cached.
    public func unpin(_ resource: Resource) {
        let engine = acquire(resource)
        defer { release(engine) }
        engine.setPinned(false)
    }

    /// Unpins the resource at `url`.
    public func unpin(_ url: URL) {
        unpin(Resource(url: url))
    }

    /// The cached bytes of every entry together.
    public var totalBytes: Int64 {
        store.keys().reduce(0) { total, key in
            if let engine = engines.withLock({ $0[key] }) { return total + engine.storedRanges.byteCount }
            return total + (store.record(key: key)?.ranges.byteCount ?? 0)
        }
    }

    /// Applies `configuration.limits` now. They also apply on their own as data is written; this is for an
    /// app that lowered them, or a test that moved its clock.
    public func enforceLimits() {
        guard evictor.isActive else { return }
        // Entries kept open only because they were used a moment ago count as closed: they may go whole.
        let open = engines.withLock { $0 }
        let active = open.filter { !$0.value.isIdle }
        for (key, engine) in open where active[key] == nil { evictor.noteIdle(key: key, summary: engine.summary) }
        evictor.enforce(active: active) { key in
            // Under the map's lock, so no reader can open the entry while it goes.
            engines.withLock { engines in
                if let open = engines[key] {
                    guard open.isIdle else { return false }
                    engines[key] = nil
                    open.close()
                }
                guard store.removeIfUnused(key: key) else { return false }
                checked.forget(key: key)
                return true
            }
        }
    }

    /// Waits for running origin requests to end and writes every index record; call it before the process
    /// exits (a command-line tool) so the index holds everything that reached the disk.
    public func close() async {
        let active = engines.withLock { Array($0.values) }
        for engine in active { await engine.settle() }
        for engine in active { closeNow(engine) }
    }

    /// A cache dropped without `close()` still leaves its index up to date (index writes during downloads run
    /// in the background and may not have happened yet); entries being read on close when they go idle.
    deinit {
        for engine in engines.withLock({ Array($0.values) }) {
            if engine.isIdle { engine.close() } else { engine.flush() }
        }
    }

    private func entry(key: String) -> CacheEntry? {
        if let engine = engines.withLock({ $0[key] }) { engine.flush() }
        guard let record = store.record(key: key) else { return nil }
        return CacheEntry(
            key: key, url: record.url, info: record.info, cachedRanges: record.ranges,
            created: record.created, lastAccess: record.lastAccess, isPinned: record.pinned)
    }

    private func acquire(_ resource: Resource) -> ResourceEngine {
        let key = key(for: resource)
        let (engine, opened) = engines.withLock { engines in
            let existing = engines[key]
            let engine =
                existing
                ?? ResourceEngine(
                    key: key, url: resource.url, origin: resource.origin ?? configuration.origin,
                    environment: environment
                ) { [weak self] engine in self?.closeIfIdle(engine) }
            engines[key] = engine
            engine.retain()
            return (engine, existing == nil)
        }
        // Outside the lock: the app's handler may call back into the cache.
        if opened, let problem = engine.problemAtOpening { problems.report(problem) }
        return engine
    }

    private var environment: EngineEnvironment {
        EngineEnvironment(
            store: store, policy: configuration.fetchPolicy, codec: codec, clock: configuration.clock,
            problems: problems, link: linkMonitor, checked: checked
        ) { [weak self] bytes in
            guard let self, self.evictor.noteWritten(bytes) else { return }
            self.enforceLimits()
        }
    }

    private func release(_ engine: ResourceEngine) {
        if engine.release() { closeIfIdle(engine) }
    }

    /// Closes and forgets an idle engine, under the map's lock so that no new reader can pick it up halfway.
    private func closeIfIdle(_ engine: ResourceEngine) {
        // An idle entry stays open a moment: a player's next request for it (they come in bursts) then
        // finds its files open and its blocks already checked. The newest `idleLimit` stay at most
        // `idleGrace` seconds.
        let overflow = engines.withLock { engines -> [ResourceEngine] in
            guard engines[engine.key] === engine, engine.isIdle else { return [] }
            let idle = engines.values.filter { $0.isIdle && $0 !== engine }
            return idle.count >= Self.idleLimit ? Array(idle.prefix(idle.count - Self.idleLimit + 1)) : []
        }
        for old in overflow { closeNow(old) }
        Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(Self.idleGrace * 1_000_000_000))
            self?.closeNow(engine)
        }
    }

    private static let idleLimit = 16
    private static let idleGrace: TimeInterval = 2

    /// Closes and forgets `engine` if it is still the entry's and idle, under the map's lock so that no new
    /// reader can pick it up halfway.
    private func closeNow(_ engine: ResourceEngine) {
        // The index write and its sync first, outside the map's lock, so opening other entries does not wait
        // for a disk; closing under the lock then finds nothing left to write unless a reader came back.
        if engine.isIdle { engine.flush() }
        engines.withLock { engines in
            guard engines[engine.key] === engine, engine.isIdle else { return }
            engines[engine.key] = nil
            engine.close()
            evictor.noteClosed(key: engine.key, record: store.record(key: engine.key))
        }
    }
}
