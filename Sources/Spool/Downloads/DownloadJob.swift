import Foundation

/// Downloads one item of a queue whole, through a `RangeStore`: giving way to playback, and only while the
/// device's conditions allow downloads. Its resources are pinned before their first byte, so the streaming
/// cache's limits never evict a download, even a half-done one.
struct DownloadJob: Sendable {
    let cache: SpoolCache
    let ranges: RangeStore
    let onState: @Sendable (DownloadState) -> Void

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
        try await ranges.whenAllowed { report(.waiting($0)) }
        await cache.markPinned(resource)
        await cache.gate.waitForPlayback()
        // A small first request: the whole file then comes in requests a pause or the conditions end at once
        // (a first request sized for the whole file would run on for a reader that left).
        let length = try await cache.contentInfo(for: resource).length
        report(.downloading(bytes: await cache.cachedRanges(for: resource).byteCount, total: length))
        try await ranges.store(
            resource, 0..<length, progress: { report(.downloading(bytes: $0, total: length)) },
            waiting: { report(.waiting($0)) })
        guard await cache.cachedRanges(for: resource).gaps(in: 0..<length).isEmpty else {
            throw Incomplete(url: url)
        }
        await cache.flushRecord(resource)
        return length
    }

    private func stream(_ url: URL, variants: HLSVariantChoice) async throws -> Int64 {
        let (pinning, report) = (HLSPinning(cache: cache), onState)
        // Each round either ends the download or was cut short by the conditions, which only the device changes
        // (and the next round waits for them to allow it again).
        for _ in 0..<1000 {
            try await ranges.whenAllowed { report(.waiting($0)) }
            await cache.gate.waitForPlayback()
            report(.downloading(bytes: 0, total: 0))
            let summary = try await ranges.whileAllowed {
                // Pinning again skips what is stored: each round goes on where the last stopped.
                try await pinning.pin(url, variants: variants) { report(.downloading(bytes: $0.bytes, total: 0)) }
            }
            if let summary { return summary.bytes }
        }
        throw CancellationError()
    }

    /// The cache keys of the resources `request` keeps in the cache: a file's own; an HLS stream's playlists
    /// and what they name, as stored (no origin request).
    static func keys(of request: DownloadRequest, in cache: SpoolCache) async -> Set<String> {
        Set(await resources(of: request, in: cache).map { cache.key(for: Resource(url: $0)) })
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
