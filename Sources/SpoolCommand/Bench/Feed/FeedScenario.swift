import Foundation
import Spool
import SpoolTesting

/// The feed benchmark across one link: the user opens each item, watches it for a seeded 2–10 s and swipes.
/// For every way of reaching the origin (`FeedRun.Way`) a new link and an empty cache; the cached pass reuses
/// the preload pass's cache after making every item whole.
struct FeedScenario {
    let media: FeedMedia
    let originPort: Int
    let origin: NginxOrigin
    /// "http" or "https" (an origin with TLS, whose authority the cache trusts through `trustRoots`).
    var scheme = "http"
    var trustRoots: [URL] = []
    let profile: LinkProfile
    /// How long the user watches each item; `nil` for an item swiped past without playing.
    let watchSeconds: [Int?]
    let player: FeedPlayer
    let root: URL
    /// Whether to print each item's first frame and preload state, and the origin's requests.
    var verbose = false

    func run(progress: (String) -> Void) async throws -> [FeedRun.Way: FeedRun.Result] {
        var results: [FeedRun.Way: FeedRun.Result] = [:]
        let preloadCache = root.appendingPathComponent("cache-\(profile.name)-preload", isDirectory: true)
        for way in FeedRun.Way.allCases {
            let directory =
                way == .preload || way == .cached
                ? preloadCache : root.appendingPathComponent("cache-\(profile.name)-\(way)", isDirectory: true)
            let run = try FeedRun(
                way: way, originPort: originPort, profile: profile, cacheDirectory: directory, scheme: scheme,
                trustRoots: trustRoots)
            let passStarted = Date()
            do {
                try await run.start()
                if way == .cached {
                    progress("\(profile.name): caching every item whole")
                    try await run.cacheWhole(media.items)
                }
                let logged = try origin.accessLog().count
                let bytesBefore = run.link.bytesFromUpstream
                var result = FeedRun.Result()
                run.preloader?.setItems(
                    media.items.map { PreloadItem(url: run.originURL($0.path)) }, current: 0)
                for (index, item) in media.items.enumerated() {
                    run.preloader?.setCurrent(index)
                    // Swiped past: on screen for a moment, never played.
                    guard let watch = watchSeconds[index] else {
                        try await Task.sleep(for: .milliseconds(200))
                        continue
                    }
                    progress("\(profile.name), \(way.rawValue): item \(index + 1) of \(media.items.count)")
                    let url = try run.playerURL(item.path)
                    let seconds = min(watch, item.seconds)
                    let stateBefore = run.preloader?.state(of: run.originURL(item.path).absoluteString)
                    let play = try await offThread { try player.play(url, seconds: seconds) }
                    if verbose {
                        progress(
                            "  \(item.path): first frame \(Int(play.firstFrame * 1000)) ms, watched \(seconds) s, "
                                + "preload state before: \(stateBefore.map { "\($0)" } ?? "-")")
                    }
                    result.firstFrame.append(play.firstFrame)
                    result.played.append(item.path)
                    result.firstMediaResponse.append(play.firstMediaResponse)
                    result.waitTime.append(play.waitTime)
                    if way != .cached { result.longestWait.append(play.longestWait) }
                }
                if let preloader = run.preloader {
                    await preloader.stop()
                    result.totals = preloader.totals
                }
                result.originBytes = run.link.bytesFromUpstream - bytesBefore
                result.duplicates = Self.duplicateBytes(try origin.accessLog().dropFirst(logged))
                if verbose {
                    for entry in try origin.accessLog().dropFirst(logged) {
                        progress("  \(entry.path) \(entry.range ?? "-") \(entry.bodyBytesSent)")
                    }
                }
                results[way] = result
            } catch {
                await run.stop()
                throw error
            }
            await run.stop()
            // The proxy finished the last items' reports as it stopped.
            let reports = await run.playbackReports(since: passStarted)
            results[way]?.reports = reports
            if verbose {
                for report in reports {
                    progress(
                        "  report \(report.item): \(report.start), start \(report.timeToStart.map { Int($0 * 1000) } ?? -1) ms, "
                            + "\(report.originWaits) waits \(Int(report.originWaitTime * 1000)) ms")
                }
                if let result = results[way] {
                    for (path, (media, waited)) in zip(result.played, zip(result.firstMediaResponse, result.waitTime)) {
                        progress(
                            "  player \(path): first media response \(media.map { Int($0 * 1000) } ?? -1) ms, "
                                + "behind \(Int(waited * 1000)) ms")
                    }
                }
            }
        }
        return results
    }

    /// The body bytes the origin sent more than once for the same path.
    static func duplicateBytes(_ entries: some Sequence<NginxLogEntry>) -> [String: Int64] {
        var sent: [String: ByteRangeSet] = [:]
        var duplicates: [String: Int64] = [:]
        for entry in entries where entry.bodyBytesSent > 0 {
            let start = entry.range.flatMap { Int64($0.dropFirst("bytes=".count).prefix { $0.isNumber }) } ?? 0
            let range = start..<start + entry.bodyBytesSent
            var set = sent[entry.path] ?? ByteRangeSet()
            let again = set.intersection(range).reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
            if again > 0 { duplicates[entry.path, default: 0] += again }
            set.insert(range)
            sent[entry.path] = set
        }
        return duplicates
    }

    /// Runs blocking work (a player process waited for) where the package runs all of it, off the pool.
    private func offThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await BlockingIO.run(work)
    }
}
