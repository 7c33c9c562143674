import ArgumentParser
import Foundation
import Spool
import SpoolTesting

/// `spool bench feed`: a feed of short videos and HLS streams played one after another across emulated
/// links, straight from the origin, through Spool, and through Spool with preloading.
struct BenchFeed: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "feed",
        abstract: "Play a feed of short videos across emulated links: start-up and stalls with and without preloading.",
        discussion: """
            Encodes a feed with ffmpeg (20 MP4s, every third with its moov at the end, and 5 HLS streams; \
            --quick: 8 and 2), serves it with nginx, and plays it with ffmpeg across each link: every item's \
            first decoded frame, then a seeded 2–10 s of it in real time (-re), then a swipe; one item in five \
            is swiped past unplayed. Ways: direct (no cache), Spool without preloading, Spool with a \
            SpoolPreloader (defaults: the current item's first 3 s, then two ahead and one behind), and Spool \
            with every item cached whole (the start-up reference). Needs nginx and ffmpeg.
            """)

    @Flag(help: "A shorter feed (10 items, watched 2–5 s): a few minutes.")
    var quick = false

    /// Three items of 2–3 s watched 2 s each: for the command's own test.
    @Flag(help: .hidden)
    var tiny = false

    @Option(help: "Seed of the feed's durations, order, watch times and skips.")
    var seed: UInt64 = 1

    @OptionGroup var link: BenchLinkOptions

    @Flag(name: .shortAndLong, help: "Print each item's first frame and preload state, and the origin's requests.")
    var verbose = false

    func run() async throws {
        let profiles = try link.profiles()
        let tools = try BenchTools.find()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-bench-feed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("www/feed"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let progress: (String) -> Void = { FileHandle.standardError.write(Data("bench feed: \($0)\n".utf8)) }
        let media = try FeedMedia.make(
            in: root.appendingPathComponent("www"), videos: tiny ? 2 : quick ? 8 : 20,
            streams: tiny ? 1 : quick ? 2 : 5,
            durations: tiny ? 2...3 : quick ? 6...10 : 8...20, seed: seed, ffmpeg: tools.ffmpeg, progress: progress)
        var random = SeededRandom(seed: seed &+ 7)
        let watch: [Int?] = media.items.indices.map { index in
            // The first item always plays; after it, one in five is swiped past.
            if index > 0, random.next(in: 0...4) == 0, !tiny { return nil }
            return Int(random.next(in: tiny ? 2...2 : quick ? 2...5 : 2...10))
        }
        let kind = link.benchOrigin
        let authority = kind.kind == .http ? nil : try TestCertificateAuthority()
        let origin = try NginxOrigin(
            serving: root.appendingPathComponent("www"), executable: tools.nginx,
            tls: authority.flatMap(kind.nginxTLS(authority:)), sendBufferBytes: BenchOrigin.sendBufferBehindLink)
        defer { origin.stop() }
        print(
            "spool bench feed\(tiny ? " --tiny" : quick ? " --quick" : ""): \(media.items.count) items "
                + "(\(media.items.filter(\.isHLS).count) HLS, \(media.items.filter(\.movieAtEnd).count) MP4 "
                + "with moov at the end), \(watch.filter { $0 == nil }.count) swiped past, seed \(seed), origin \(kind), "
                + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(
            "order: "
                + zip(media.items, watch).map { item, watched in
                    "\(item.path.split(separator: "/").suffix(item.isHLS ? 2 : 1).joined(separator: "/")) "
                        + (watched.map { "\($0) s" } ?? "skipped")
                }.joined(separator: ", "))
        for profile in profiles {
            let scenario = FeedScenario(
                media: media, originPort: origin.port, origin: origin, scheme: kind.scheme,
                trustRoots: authority.map { [$0.certificateFile] } ?? [], profile: profile, watchSeconds: watch,
                player: FeedPlayer(ffmpeg: tools.ffmpeg), root: root, verbose: verbose)
            let results = try await scenario.run(progress: progress)
            print()
            print(
                FeedReport(
                    profile: profile, media: media, watch: watch, www: root.appendingPathComponent("www"),
                    results: results
                ).table)
        }
    }
}
