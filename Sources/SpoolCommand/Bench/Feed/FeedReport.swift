import Foundation
import Spool
import SpoolTesting

/// The feed benchmark's table for one link.
struct FeedReport {
    let profile: LinkProfile
    let media: FeedMedia
    let watch: [Int?]
    let www: URL
    let results: [FeedRun.Way: FeedRun.Result]

    /// The preloader's default target, for the bound on waste.
    static let targetSeconds = 3.0

    var table: String {
        let ways = FeedRun.Way.allCases
        var lines = [
            "### \(profile)",
            "",
            "| measure | " + ways.map(\.rawValue).joined(separator: " | ") + " | goal | met |",
            "|---|" + String(repeating: "---|", count: ways.count + 2),
        ]
        func row(_ title: String, _ value: (FeedRun.Result) -> String, goal: String = "", met: String = "") {
            lines.append(
                "| \(title) | " + ways.map { results[$0].map(value) ?? "—" }.joined(separator: " | ")
                    + " | \(goal) | \(met) |")
        }
        // The first item has nothing before it to be preloaded during: the next items are the measure.
        func nextFrames(_ result: FeedRun.Result) -> [Double] { Array(result.firstFrame.dropFirst()) }
        row("first decoded frame of the next items, median", { Self.ms(Self.percentile(nextFrames($0), 0.5)) })
        row("the same, 90th percentile", { Self.ms(Self.percentile(nextFrames($0), 0.9)) })
        let cachedMedian = results[.cached].map { Self.percentile(nextFrames($0), 0.5) } ?? .nan
        let ratio = results[.preload].map { Self.percentile(nextFrames($0), 0.5) / cachedMedian } ?? .nan
        lines.append(
            "| median ÷ all cached | "
                + ways.map { way in
                    results[way].map { String(format: "%.2f", Self.percentile(nextFrames($0), 0.5) / cachedMedian) }
                        ?? "—"
                }.joined(separator: " | ") + " | preload ≤ 1.20 | \(ratio <= 1.2 ? "yes" : "**no**") |")
        let waitNoPreload = results[.spool].map { $0.longestWait.max() ?? 0 } ?? .nan
        let waitPreload = results[.preload].map { $0.longestWait.max() ?? 0 } ?? .nan
        // Progress reports come every 0.1 s: differences below that are the measurement's grain.
        row(
            "longest wait while watching (any item)", { $0.longestWait.isEmpty ? "—" : Self.ms($0.longestWait.max()!) },
            goal: "preload ≤ no preload", met: waitPreload <= waitNoPreload + 0.1 ? "yes" : "**no**")
        // What the cache's own playback reports say of the same passes (`cache.playback`): the proxy's view,
        // from an item's first request to its first media byte, and its waits on the origin after that.
        row(
            "reports: time to start of the next items, median",
            {
                $0.reports.isEmpty
                    ? "—" : Self.ms(Self.percentile($0.reports.dropFirst().compactMap(\.timeToStart), 0.5))
            })
        // The player's own view of the same starts and waits, from its HTTP log and progress (`FeedAgreement`).
        row(
            "player's log: first media response of the next items, median",
            { Self.ms(Self.percentile($0.firstMediaResponse.dropFirst().compactMap { $0 }, 0.5)) })
        let agreements = [FeedRun.Way.spool, .preload, .cached].compactMap { results[$0].map(FeedAgreement.init) }
        row(
            "reports vs the player: largest difference in an item's start",
            { $0.reports.isEmpty ? "—" : FeedAgreement($0).largestStartDifference.map(Self.ms) ?? "—" },
            goal: "≤ 10 % or 5 ms",
            met: !agreements.isEmpty && agreements.allSatisfy(\.agrees) ? "yes" : "**no**")
        row(
            "player: time behind in waits ≥ 0.25 s, all items",
            { $0.waitTime.isEmpty ? "—" : Self.ms($0.waitTime.reduce(0, +)) })
        row(
            "reports: time waiting on the origin, all items",
            { $0.reports.isEmpty ? "—" : Self.ms($0.reports.reduce(0) { $0 + $1.originWaitTime }) })
        row(
            "reports: items started from the cache / partly / cold",
            { result in
                result.reports.isEmpty
                    ? "—"
                    : PlaybackReport.Start.allCases.map { start in
                        "\(result.reports.filter { $0.start == start }.count)"
                    }
                    .joined(separator: " / ")
            })
        row(
            "reports: waits on the origin after the start",
            { $0.reports.isEmpty ? "—" : "\($0.reports.reduce(0) { $0 + $1.originWaits })" })
        row("bytes from the origin", { Self.mb($0.originBytes) })
        let duplicates = results[.preload]?.duplicateBytes ?? 0
        row(
            "bytes fetched twice", { Self.mb($0.duplicateBytes) }, goal: "preload: 0",
            met: duplicates == 0 ? "yes" : "**no**")
        if let totals = results[.preload]?.totals {
            let bound = skippedTargetBytes
            lines.append(
                "| preloaded / of them played / wasted | | | \(Self.mb(totals.bytesPreloaded)) / "
                    + "\(Self.mb(totals.bytesPlayed)) / \(Self.mb(totals.bytesWasted)) | | "
                    + "wasted ≤ \(Self.mb(bound)) (3 s × \(watch.filter { $0 == nil }.count) items skipped) | "
                    + "\(totals.bytesWasted <= bound ? "yes" : "**no**") |")
        }
        return lines.joined(separator: "\n")
    }

    /// What 3 s of each skipped item weigh (an HLS stream's segments are 2 s: two of them), its `moov` at the
    /// end included.
    private var skippedTargetBytes: Int64 {
        var total: Int64 = 0
        for (item, watched) in zip(media.items, watch) where watched == nil {
            let bytes: Int64
            if item.isHLS {
                let directory = www.appendingPathComponent(String(item.path.dropFirst())).deletingLastPathComponent()
                let segments = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                bytes = segments.filter { $0.hasSuffix(".ts") }.sorted().prefix(2).reduce(0) {
                    $0 + Self.size(directory.appendingPathComponent($1))
                }
            } else {
                let file = www.appendingPathComponent(String(item.path.dropFirst()))
                let size = Self.size(file)
                bytes =
                    Int64(Double(size) * min(1, Self.targetSeconds / Double(item.seconds)))
                    + (item.movieAtEnd ? Self.movieBoxSize(file) : 0)
            }
            total += bytes
        }
        return total
    }

    /// The size of an MP4's top-level `moov` box.
    private static func movieBoxSize(_ file: URL) -> Int64 {
        guard let data = try? Data(contentsOf: file) else { return 0 }
        var offset = 0
        while offset + 8 <= data.count {
            let size = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if data[offset + 4..<offset + 8].elementsEqual("moov".utf8) { return Int64(size) }
            guard size >= 8 else { return 0 }
            offset += size
        }
        return 0
    }

    private static func size(_ file: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }

    static func ms(_ seconds: Double) -> String { seconds.isNaN ? "—" : String(format: "%.0f ms", seconds * 1000) }

    static func mb(_ bytes: Int64) -> String { String(format: "%.2f MB", Double(bytes) / 1e6) }
}
