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
            GET /statistics with the same figures as JSON.
            """)

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let statistics = try await cacheOptions.openCache().cache.statistics
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(statistics), as: UTF8.self))
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
}
