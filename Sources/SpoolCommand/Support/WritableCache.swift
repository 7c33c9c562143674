import Foundation
import Spool

/// Opens the cache a filling command (`get`, `pin`) writes to, with its headers and limits, runs `body`,
/// and closes the cache and its HTTP client whether `body` succeeds or not: what arrived before a failure
/// stays cached and indexed.
func withWritableCache(
    _ cacheOptions: CacheOptions, headers: HeaderOptions, limits: LimitOptions,
    _ body: (SpoolCache) async throws -> Void
) async throws {
    let opened = try cacheOptions.openCache(
        headers: try headers.fields(), limits: try limits.limits(), reportProblems: true)
    do {
        if let summary = try limits.summary() { FileHandle.standardError.write(Data((summary + "\n").utf8)) }
        try await body(opened.cache)
        await opened.close()
    } catch {
        await opened.close()
        throw error
    }
}
