import ArgumentParser
import Foundation
import Spool
import SpoolDownloads

/// `spool pin URL`: pins a resource for offline use and downloads all of it; of an HLS stream, what playing
/// it needs.
struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin a resource for offline use: download all of it and exempt it from eviction.",
        discussion: """
            An HLS playlist (master or media) pins what playing the stream needs: of a master, one variant \
            (the highest by default) with the audio and subtitle renditions it names, then each media \
            playlist with its keys, initialization sections and segments.
            """)

    @Argument(help: "The http or https URL.")
    var url: String

    @Option(help: "HLS: the highest variant of at most this many bits per second (800000, 800k, 3M).")
    var bandwidth: String?

    @Option(help: "HLS: the highest variant at most this tall (720, or 1280x720).")
    var resolution: String?

    @Flag(help: "HLS: every variant, for a player that switches between them offline.")
    var allVariants = false

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let url = try parseOriginURL(url)
        // After a failure the pin stays, so a later `spool pin` completes the download.
        let choice = try variantChoice()
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            // Before anything asks for the content information, which brings (and caches) the first bytes.
            let cachedBefore = await cache.cachedRanges(for: Resource(url: url)).byteCount
            // What crosses the network, counted where it arrives (an origin that ignores ranges sends more).
            let fetchedBefore = await cache.statistics.bytesFetched
            let streams = HLSPinning(cache: cache)
            if try await streams.isPlaylist(url) {
                try await pinStream(url, choice: choice ?? .highest, with: streams)
                let fetched = await cache.statistics.bytesFetched - fetchedBefore
                FileHandle.standardError.write(Data("\(ByteCountText.format(fetched)) from the origin\n".utf8))
            } else {
                guard choice == nil else {
                    throw CommandFailure(message: "--bandwidth, --resolution and --all-variants are for HLS playlists")
                }
                try await pin(url, in: cache, cachedBefore: cachedBefore, fetchedBefore: fetchedBefore)
            }
        }
    }

    /// The variant choice the options ask for; `nil` when none does.
    private func variantChoice() throws -> HLSVariantChoice? {
        let given = [bandwidth != nil, resolution != nil, allVariants].filter { $0 }.count
        guard given <= 1 else {
            throw CommandFailure(message: "choose one of --bandwidth, --resolution and --all-variants")
        }
        if allVariants { return .all }
        if let bandwidth {
            let text = bandwidth.lowercased()
            let multiplier = text.hasSuffix("m") ? 1_000_000 : text.hasSuffix("k") ? 1000 : 1
            let digits = multiplier == 1 ? text : String(text.dropLast())
            guard let value = Double(digits), value > 0 else {
                throw CommandFailure(message: "--bandwidth: bits per second, like 800000, 800k or 3M")
            }
            return .bandwidth(atMost: Int(value * Double(multiplier)))
        }
        if let resolution {
            let height = resolution.lowercased().split(separator: "x").last.flatMap { Int($0) }
            guard let height, height > 0 else {
                throw CommandFailure(message: "--resolution: a height (720) or WIDTHxHEIGHT (1280x720)")
            }
            return .resolution(maximumHeight: height)
        }
        return nil
    }

    private func pinStream(_ url: URL, choice: HLSVariantChoice, with streams: HLSPinning) async throws {
        let summary = try await streams.pin(url, variants: choice) { progress in
            // A line per tenth of the resources known so far, and the last.
            let step = max(1, progress.total / 10)
            guard progress.pinned % step == 0 || progress.pinned == progress.total else { return }
            FileHandle.standardError.write(
                Data(
                    ("pinned \(progress.pinned) of \(progress.total) resources, "
                        + "\(ByteCountText.format(progress.bytes))\n").utf8))
        }
        let playlists = summary.mediaPlaylists.map { CacheKeyPolicy.displayURL(for: $0) }.joined(separator: ", ")
        FileHandle.standardError.write(
            Data(
                ("pinned \(CacheKeyPolicy.displayURL(for: url)): \(summary.resources.count) resources, "
                    + "\(ByteCountText.format(summary.bytes)); media playlists: \(playlists)\n").utf8))
    }

    private func pin(_ url: URL, in cache: SpoolCache, cachedBefore: Int64, fetchedBefore: Int64) async throws {
        let resource = Resource(url: url)
        let info = try await cache.contentInfo(for: resource)
        // `pin` reports no progress of its own: watch the cached bytes grow while it runs.
        let watcher = Task {
            var progress = ProgressReporter(total: info.length)
            while !Task.isCancelled {
                await progress.update(cache.cachedRanges(for: resource).byteCount)
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
        let cached = await cache.cachedRanges(for: resource).byteCount
        progress.update(cached)
        progress.finish()
        guard cached >= info.length else {
            throw CommandFailure(message: "pinned, but only \(cached) of \(info.length) bytes are cached")
        }
        let fetched = await cache.statistics.bytesFetched - fetchedBefore
        FileHandle.standardError.write(
            Data(
                ("pinned \(ByteCountText.format(info.length)) of \(CacheKeyPolicy.displayURL(for: url)): "
                    + "\(ByteCountText.format(fetched)) from the origin, "
                    + "\(ByteCountText.format(cachedBefore)) from the cache\n").utf8))
    }
}
