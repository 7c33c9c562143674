import Foundation

/// The entries of a cache: what is cached, removing, limits.
extension SpoolCache {
    /// The entry of `resource`, if the cache knows it. Reads its index record on `BlockingIO`.
    public func entry(for resource: Resource) async -> CacheEntry? {
        let key = key(for: resource)
        return await blocking { $0.entry(key: key) } ?? nil
    }

    /// The entry of the resource at `url`, if the cache knows it.
    public func entry(for url: URL) async -> CacheEntry? {
        await entry(for: Resource(url: url))
    }

    /// The bytes of `resource` on disk now: from the reader in progress if there is one (no index write),
    /// else from the index (read on `BlockingIO`).
    public func cachedRanges(for resource: Resource) async -> ByteRangeSet {
        let key = key(for: resource)
        if let stored = open.engine(for: key)?.storedRanges { return stored }
        return await blocking { $0.store.record(key: key)?.ranges ?? ByteRangeSet() } ?? ByteRangeSet()
    }

    /// The bytes of the resource at `url` on disk now (see `cachedRanges(for:)` of a `Resource`).
    public func cachedRanges(for url: URL) async -> ByteRangeSet {
        await cachedRanges(for: Resource(url: url))
    }

    /// Every entry, most recently used first.
    public func entries() async -> [CacheEntry] {
        await blocking { cache in
            cache.knownKeys().compactMap(cache.entry(key:)).sorted { $0.lastAccess > $1.lastAccess }
        } ?? []
    }

    /// Runs `work` with this cache on the eviction queue (on `BlockingIO`), where index records are read and
    /// files removed: after the pass that opening the cache started, and never in the middle of one, so what it
    /// sees holds to the limits. `nil` only if that queue could not run it.
    func blocking<T: Sendable>(_ work: @escaping @Sendable (SpoolCache) -> T) async -> T? {
        try? await BlockingIO.run(on: evictor.queue) { [self] in work(self) }
    }

    /// The keys of the entries on disk and of those open in this process: an entry's first record is written
    /// when its first request ends, not when it opens (the write ran beside a cold read's first bytes).
    func knownKeys() -> [String] {
        Array(Set(store.keys()).union(open.all.keys))
    }

    /// Deletes the entry of `resource`, on `BlockingIO`. Reads of it in progress in this process end with an
    /// error; later reads fetch it anew.
    public func remove(_ resource: Resource) async {
        let key = key(for: resource)
        await blocking { $0.remove(key: key) }
        removals.yield([()])
    }

    /// Deletes the entry of the resource at `url`.
    public func remove(_ url: URL) async {
        await remove(Resource(url: url))
    }

    /// Deletes every entry.
    public func removeAll() async {
        await blocking { cache in
            for key in cache.knownKeys() { cache.remove(key: key) }
        }
        removals.yield([()])
    }

    /// One entry's removal, on `BlockingIO`.
    func remove(key: String) {
        open.engine(for: key)?.removeAll()
        store.remove(key: key)
        checked.forget(key: key)
    }

    /// The cached bytes of every entry together (index records read on `BlockingIO`).
    public var totalBytes: Int64 {
        get async {
            await blocking { cache in
                cache.knownKeys().reduce(0) { total, key in
                    if let stored = cache.open.engine(for: key)?.storedRanges { return total + stored.byteCount }
                    return total + (cache.store.record(key: key)?.ranges.byteCount ?? 0)
                }
            } ?? 0
        }
    }

    /// Applies `configuration.limits` now, on the eviction queue, and returns once it is done. They also apply
    /// on their own as data is written; this is for an app that lowered them, or a test that moved its clock.
    public func enforceLimits() async {
        guard evictor.isActive else { return }
        _ = try? await BlockingIO.run(on: evictor.queue) { self.enforceLimitsNow(incoming: 0) }
    }

    /// `enforceLimits` for a download about to write `incoming` bytes: the pass runs on the eviction queue, not
    /// its thread.
    func makeRoom(for incoming: Int64) async {
        _ = try? await BlockingIO.run(on: evictor.queue) { self.enforceLimitsNow(incoming: incoming) }
    }

    /// One eviction pass, on the evictor's queue.
    func enforceLimitsNow(incoming: Int64) {
        // Entries kept open only because they were used a moment ago count as closed: they may go whole. So
        // do entries still opening: their record says what they hold.
        let engines = open.all
        let active = engines.filter { !$0.value.isIdle && $0.value.isOpen }
        var idle: [String: Evictor.Summary] = [:]
        for (key, engine) in engines where active[key] == nil { idle[key] = engine.summary }
        let evicted = evictor.enforce(active: active, idle: idle, incoming: incoming) { key in
            // Taken out of the map under its lock, so no reader can pick the engine up while the entry goes; a
            // new engine of it opens once the removal is done.
            guard let leaving = open.takeForRemoval(key) else { return false }
            defer { open.endRemoval(key) }
            leaving?.closeBlocking()
            guard store.removeIfUnused(key: key) else { return false }
            checked.forget(key: key)
            return true
        }
        statisticsCounter.evicted(evicted)
    }

    /// The entry `key` as its index record says, after this process's open engine wrote its own.
    func entry(key: String) -> CacheEntry? {
        open.engine(for: key)?.index.flushBlocking()
        guard let record = store.record(key: key) else { return nil }
        return CacheEntry(
            key: key, url: record.url, info: record.info, cachedRanges: record.ranges,
            created: record.created, lastAccess: record.lastAccess, isPinned: record.pinned)
    }
}
