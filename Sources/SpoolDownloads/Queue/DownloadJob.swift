import Foundation
import Spool

/// Downloads one item of a queue whole: says what to store, and the cache's transfer scheduler runs it as a
/// download (after playback, read-ahead, prefetches and preloads, and only while the device's conditions allow
/// downloads). Its resources are pinned before their first byte, so the streaming cache's limits never evict a
/// download, even a half-done one.
struct DownloadJob: Sendable {
    let client: TransferClient
    let onState: @Sendable (DownloadState) -> Void

    private var cache: SpoolCache { client.cache }

    /// A download whose resources were downloaded but are not all stored (another process removed some).
    struct Incomplete: Error, CustomStringConvertible {
        let url: URL
        var description: String { "\(url) is not stored whole" }
    }

    /// Downloads `request`; returns the bytes it stored.
    func run(_ request: DownloadRequest) async throws -> Int64 {
        switch request.kind {
        case .file: return try await file(request.url)
        case .hls(let variants): return try await stream(request.url, variants: variants)
        }
    }

    private func file(_ url: URL) async throws -> Int64 {
        let (resource, report) = (Resource(url: url), onState)
        // Written down at once: what a half-done download stores is kept from eviction across a crash too.
        await cache.markPinned(resource)
        let stored = try await cache.pin(
            resource, through: client, progress: { report(.downloading(bytes: $0, total: $1)) },
            waiting: { report(.waiting($0)) })
        guard await cache.cachedRanges(for: resource).gaps(in: stored).isEmpty else { throw Incomplete(url: url) }
        return stored.upperBound - stored.lowerBound
    }

    private func stream(_ url: URL, variants: HLSVariantChoice) async throws -> Int64 {
        let report = onState
        report(.downloading(bytes: 0, total: 0))
        // Pinning again skips what is stored: a download that failed goes on where it stopped.
        return try await HLSPinning(client: client).pin(
            url, variants: variants, progress: { report(.downloading(bytes: $0.bytes, total: 0)) },
            waiting: { report(.waiting($0)) }
        ).bytes
    }

    /// The cache keys of the resources `request` keeps in the cache: a file's own; an HLS stream's playlists
    /// and what they name, as stored (no origin request).
    static func keys(of request: DownloadRequest, in cache: SpoolCache) async -> Set<String> {
        Set(await resources(of: request, in: cache).map { cache.key(for: Resource(url: $0)) })
    }

    /// Whether what `request` downloaded is still stored whole: a file's every byte; an HLS stream's playlists
    /// and every resource they name, as stored. Read from the index, with no origin request.
    static func isStoredWhole(_ request: DownloadRequest, in cache: SpoolCache) async -> Bool {
        let urls = await resources(of: request, in: cache)
        guard urls.contains(request.url) else { return false }
        for url in urls {
            guard let entry = await cache.entry(for: url), entry.cachedBytes == entry.info.length else { return false }
        }
        return true
    }

    /// Unpins and removes what `request` stored (it was removed from the queue), but for the resources whose
    /// keys are in `kept`: what the downloads still queued hold too (one track in two albums, a key or a
    /// segment two variants share).
    static func discard(_ request: DownloadRequest, keeping kept: Set<String>, in cache: SpoolCache) async {
        for url in await resources(of: request, in: cache) where !kept.contains(cache.key(for: Resource(url: url))) {
            await cache.unpin(url)
            await cache.remove(url)
        }
    }

    private static func resources(of request: DownloadRequest, in cache: SpoolCache) async -> [URL] {
        switch request.kind {
        case .file: [request.url]
        case .hls(let variants): await HLSPinning(cache: cache).storedResources(request.url, variants: variants)
        }
    }
}
