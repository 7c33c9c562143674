import Foundation

/// Pinning: entries kept for offline use, exempt from eviction.
extension SpoolCache {
    /// Pins `resource` for offline use and downloads all of it (giving way to playback reads); pinned
    /// entries are never evicted. Returns when every byte is cached.
    public func pin(_ resource: Resource) async throws {
        try await pin(resource, through: TransferClient(cache: self, purpose: .download))
    }

    /// `pin`, its download through `client` (a download queue's, under its conditions), telling `progress` how
    /// many bytes are stored and `waiting` what it waits for; returns the resource's bytes.
    @discardableResult
    package func pin(
        _ resource: Resource, through client: TransferClient,
        progress: @escaping @Sendable (_ stored: Int64, _ total: Int64) -> Void = { _, _ in },
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> Range<Int64> {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.setPinned(true)
        let stored = try await client.store(resource, progress: progress, waiting: waiting)
        await engine.index.flush()
        return stored
    }

    /// Pins `resource` without downloading it, and writes the pin down at once: a download for offline keeps
    /// its bytes from eviction from the first one, across a crash too.
    package func markPinned(_ resource: Resource) async {
        let engine = acquire(resource)
        defer { release(engine) }
        await engine.setPinned(true)
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
