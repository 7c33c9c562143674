import ArgumentParser
import Foundation
import Spool

/// `spool preload URL...`: stores what playing the first seconds (or bytes) of each resource needs.
struct Preload: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Preload the start of resources: what playing their first seconds needs, or their first bytes.",
        discussion: """
            Seconds are found in the file's layout: an MP4's moov and sample tables (a moov at the end is \
            preloaded too), an MP3's frame headers, an HLS playlist's segments (of a master, the first \
            variant and its default audio). A file whose layout is not understood gets its first 1 MB. \
            Playing a preloaded resource later, through `spool serve` or an app on this cache, fetches \
            nothing of what was preloaded.
            """)

    @Argument(help: "The http or https URLs.")
    var urls: [String]

    @Option(help: "Preload what playing this many seconds needs (default 3).")
    var seconds: Double?

    @Option(help: "Preload this many bytes instead (1000000, 800KB, 2MB).")
    var bytes: String?

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        if seconds != nil, bytes != nil { throw ValidationError("choose one of --seconds and --bytes") }
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
        if let bytes { _ = try parsedBytes(bytes) }
    }

    func run() async throws {
        let urls = try urls.map(parseOriginURL)
        let target: PreloadTarget = try bytes.map { .bytes(try parsedBytes($0)) } ?? .seconds(seconds ?? 3)
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            let preloader = SpoolPreloader(cache: cache, configuration: PreloadConfiguration(target: target))
            var failures = 0
            for url in urls {
                let fetchedBefore = await cache.statistics.bytesFetched
                do {
                    let (plan, stored) = try await preloader.planAndPreload(PreloadItem(url: url))
                    let fetched = await cache.statistics.bytesFetched - fetchedBefore
                    let pieces = plan.pieces.count == 1 ? "1 range" : "\(plan.pieces.count) ranges"
                    FileHandle.standardError.write(
                        Data(
                            ("preloaded \(CacheKeyPolicy.displayURL(for: url)): \(target) (\(plan.basis)) = "
                                + "\(ByteCountText.format(stored)) in \(pieces), "
                                + "\(ByteCountText.format(fetched)) from the origin\n").utf8))
                } catch {
                    failures += 1
                    FileHandle.standardError.write(
                        Data("failed \(CacheKeyPolicy.displayURL(for: url)): \(error)\n".utf8))
                }
            }
            if failures > 0 { throw CommandFailure(message: "\(failures) of \(urls.count) failed") }
        }
    }

    private func parsedBytes(_ text: String) throws -> Int64 {
        do {
            return try ByteSize(parsing: text).bytes
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError("--bytes: \(invalid)")
        }
    }
}
