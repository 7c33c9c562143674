// A Swift sample of the DocC article "Using the cache from Swift" (Spool.docc/UsingTheCache.md), between the
// markers: DocSamplesTests checks that every Swift block of the README and the articles is in this target or
// in SpoolQuickStart as written, so what a reader copies is what CI compiles. One file per sample that
// imports, so that sorting imports keeps them inside its markers.

// sample begins
import Foundation
import Spool

/// The app's one cache for its media, opened at launch and shared by everything that plays.
func openMediaCache(token: String) throws -> SpoolCache {
    let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    return try SpoolCache(
        configuration: SpoolConfiguration(
            directory: caches.appendingPathComponent("media"),
            origin: HTTPOrigin { request in
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            },
            limits: CacheLimits(maxBytes: 2 << 30)
        ))
}

/// Plays a range of a track through the cache, then warms up the next track.
func playRange(of trackURL: URL, thenPrefetch nextURL: URL, cache: SpoolCache, feed: (Data) -> Void) async throws {
    // Bytes 1 000 000 … 1 065 535, from disk where cached, from the origin where not.
    for try await chunk in cache.read(trackURL, from: 1_000_000, length: 65_536) {
        feed(chunk)
    }

    let info = try await cache.contentInfo(for: trackURL)  // length, MIME type, ETag; offline once known
    print(info.length, info.mimeType ?? "no type", await cache.cachedRanges(for: trackURL))
    try await cache.prefetch(nextURL, length: 512 * 1024)  // gives way to reads that play
    print(await cache.entry(for: trackURL)?.fractionCached ?? 0)
}
// sample ends
