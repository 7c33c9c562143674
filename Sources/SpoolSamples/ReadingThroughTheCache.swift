// A Swift sample of the DocC article "Using the cache from Swift" (Spool.docc/UsingTheCache.md), between the
// markers: DocSamplesTests checks that every Swift block of the README and the articles is in this target or
// in SpoolQuickStart as written, so what a reader copies is what CI compiles. One file per sample that
// imports, so that sorting imports keeps them inside its markers.

// sample begins
import Foundation
import Spool

/// Plays a range of a track through the cache, then warms up the next track.
func playRange(of trackURL: URL, thenPrefetch nextTrackURL: URL, token: String, feed: (Data) -> Void) async throws {
    let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    let cache = try SpoolCache(
        configuration: SpoolConfiguration(
            directory: caches.appendingPathComponent("media"),
            origin: HTTPOrigin(modifier: .headers(["Authorization": "Bearer \(token)"]))
        ))

    // Bytes 1 000 000 … 1 065 535, from disk where cached, from the origin where not.
    for try await chunk in cache.read(trackURL, from: 1_000_000, length: 65_536) {
        feed(chunk)
    }

    let info = try await cache.contentInfo(for: trackURL)  // length, MIME type, ETag; offline once known
    print(info.length, info.mimeType ?? "no type")
    try await cache.prefetch(Resource(url: nextTrackURL), length: 512 * 1024)
    print(cache.entry(for: trackURL)?.fractionCached ?? 0)
    await cache.close()  // before the process exits
}
// sample ends
