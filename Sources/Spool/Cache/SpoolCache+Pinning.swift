import Foundation

/// Pinning: entries kept for offline use, exempt from eviction.
extension SpoolCache {
    /// Pins `resource` for offline use and downloads all of it (giving way to playback reads); pinned
    /// entries are never evicted. Returns when every byte is cached.
    public func pin(_ resource: Resource) async throws {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.setPinned(true)
        try await prefetch(resource)
        await engine.index.flush()
    }

    /// Pins `resource` without downloading it, and writes the pin down at once: a download for offline keeps
    /// its bytes from eviction from the first one, across a crash too.
    package func markPinned(_ resource: Resource) async {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.setPinned(true)
        await engine.index.flush()
    }

    /// Writes `resource`'s record down now: what is stored and whether it is pinned.
    package func flushRecord(_ resource: Resource) async {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.index.flush()
    }

    /// Pins the resource at `url`.
    public func pin(_ url: URL) async throws {
        try await pin(Resource(url: url))
    }

    /// Makes `resource` evictable again; its bytes stay cached.
    public func unpin(_ resource: Resource) async {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.setPinned(false)
    }

    /// Unpins the resource at `url`.
    public func unpin(_ url: URL) async {
        await unpin(Resource(url: url))
    }
}
