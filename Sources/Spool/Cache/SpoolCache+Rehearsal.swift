import Foundation

extension SpoolCache {
    /// Runs a cold read end to end once, on a private cache in a new temporary directory that it removes after:
    /// the resource at `url` fetched through `origin` as a player's read (its first bytes peeked at, as the proxy
    /// does to tell a playlist), stored with its index record, then read again from disk and lent as a stored
    /// hit is. `warmUp()` reaches the code a first read runs without an origin; this reaches the rest (the
    /// engine's read and request, the transport's connection and response, the writes), so the first player
    /// does not pay for that code's first run: the Swift runtime instantiating its generic types and the
    /// dynamic linker binding its symbols. Nothing of it shows in any other cache. `directory` (by default a
    /// new one in the temporary directory) must not exist. Returns the bytes read each time; a failure ends it
    /// early.
    @discardableResult
    package static func rehearseColdRead(
        of url: URL, through origin: any Origin,
        in directory: URL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-rehearsal-\(UUID().uuidString)", isDirectory: true)
    ) async -> [Int] {
        var counts: [Int] = []
        var opened: SpoolCache?
        do {
            let cache = try await BlockingIO.run {
                try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: origin))
            }
            opened = cache
            let resource = Resource(url: url)
            for _ in 0..<2 {
                let session = try await cache.openRead(resource, purpose: .playback())
                _ = try await session.peek(16)
                var count = 0
                while let part = try await session.nextPart(revoke: {}) {
                    count += part.count
                    if case .file(let slice) = part { slice.release() }
                }
                counts.append(count)
            }
            let lent = cache.lendStored(key: cache.key(for: resource), revoke: {}, range: { 0..<$0.length })
            lent?.slice.release()
        } catch {
            // A rehearsal that fails (or is cancelled) leaves the first read's costs where they were.
        }
        await opened?.close()
        _ = try? await BlockingIO.run { try FileManager.default.removeItem(at: directory) }
        return counts
    }
}
