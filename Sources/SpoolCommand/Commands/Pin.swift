import ArgumentParser
import Foundation
import Spool

/// `spool pin URL`: pins a resource for offline use and downloads all of it.
struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin a resource for offline use: download all of it and exempt it from eviction.")

    @Argument(help: "The http or https URL.")
    var url: String

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let url = try parseOriginURL(url)
        // After a failure the pin stays, so a later `spool pin` completes the download.
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            try await pin(url, in: cache)
        }
    }

    private func pin(_ url: URL, in cache: SpoolCache) async throws {
        let resource = Resource(url: url)
        // Before the content information: asking the origin for it brings (and caches) the first bytes.
        let cachedBefore = cache.cachedRanges(for: resource).byteCount
        let info = try await cache.contentInfo(for: resource)
        // `pin` reports no progress of its own: watch the cached bytes grow while it runs.
        let watcher = Task {
            var progress = ProgressReporter(total: info.length)
            while !Task.isCancelled {
                progress.update(cache.cachedRanges(for: resource).byteCount)
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
            return progress
        }
        do {
            try await cache.pin(resource)
        } catch {
            watcher.cancel()
            throw error
        }
        watcher.cancel()
        var progress = await watcher.value
        let cached = cache.cachedRanges(for: resource).byteCount
        progress.update(cached)
        progress.finish()
        guard cached >= info.length else {
            throw CommandFailure(message: "pinned, but only \(cached) of \(info.length) bytes are cached")
        }
        FileHandle.standardError.write(
            Data(
                ("pinned \(ByteCountText.format(info.length)) of \(CacheKeyPolicy.displayURL(for: url)): "
                    + "\(ByteCountText.format(info.length - cachedBefore)) from the origin, "
                    + "\(ByteCountText.format(cachedBefore)) from the cache\n").utf8))
    }
}
