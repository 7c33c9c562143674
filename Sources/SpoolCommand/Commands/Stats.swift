import ArgumentParser
import Foundation
import Spool

/// `spool stats`: what the cache has served, fetched and evicted, across every process that used it.
struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what the cache served (from disk and from the origin), fetched and evicted.",
        discussion: """
            Counted by every process that used the cache directory (`spool serve`, `spool get`, an app) since \
            the date shown, and written every few seconds while they run. A running `spool serve` also answers \
            GET /statistics with the same figures as JSON. With --playback: the playback reports of the items played \
            (time to first byte and to start, waits on the origin, bytes from the cache, a preload or the origin), \
            split by how much of each item's start was cached; a running `spool serve` answers GET /playback.
            """)

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Flag(help: "Show the playback reports (startup, waits on the origin, bytes by source) instead.")
    var playback = false

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let cache = try cacheOptions.openCache().cache
        if playback {
            let reports = await cache.playback.recent()
            if json {
                print(try Self.jsonText(PlaybackAnswer(summary: PlaybackSummary(reports), reports: reports)))
            } else {
                for line in PlaybackTable.lines(for: reports) { print(line) }
            }
            return
        }
        let statistics = await cache.statistics
        if json {
            print(try Self.jsonText(statistics))
            return
        }
        let ratio = statistics.hitRatio.map { String(format: "%.1f%%", $0 * 100) } ?? "-"
        print("since              \(ISO8601DateFormatter().string(from: statistics.since))")
        print("served             \(ByteCountText.format(statistics.bytesServed))")
        print("  from the cache   \(ByteCountText.format(statistics.bytesServedFromCache))")
        print("  from the origin  \(ByteCountText.format(statistics.bytesServedFromOrigin))")
        print("hit ratio          \(ratio)")
        print("fetched            \(ByteCountText.format(statistics.bytesFetched)) (preloads and pins included)")
        print("evicted            \(ByteCountText.format(statistics.bytesEvicted))")
    }

    /// The playback reports and their summary, as the proxy's `/playback` answers them.
    private struct PlaybackAnswer: Encodable {
        let summary: PlaybackSummary
        let reports: [PlaybackReport]
    }

    private static func jsonText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
