import Foundation
import Spool

/// Opens the cache a filling command (`get`, `pin`) writes to, with its headers and limits, runs `body`,
/// and closes the cache whether `body` succeeds or not: what arrived before a failure stays cached and
/// indexed.
func withWritableCache(
    _ cacheOptions: CacheOptions, headers: HeaderOptions, limits: LimitOptions,
    _ body: (SpoolCache) async throws -> Void
) async throws {
    let cache = try cacheOptions.openCache(headers: try headers.fields(), limits: try limits.limits(), reportProblems: true)
    if let summary = try limits.summary() { FileHandle.standardError.write(Data((summary + "\n").utf8)) }
    do {
        try await body(cache)
        await cache.close()
    } catch {
        await cache.close()
        throw error
    }
}
