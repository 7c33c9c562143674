import ArgumentParser
import Foundation
import Spool
import SpoolTesting

#if os(Linux)
import AVFoundationStandIn
import SpoolAVFoundation
#endif

/// `spool demo`: Spool's main job with nothing to set up. Starts a local origin serving a generated
/// media-sized file, plays it twice the way AVPlayer does (probe, play, jump to the tail, seeks forward and
/// back, each read abandoned part-way) through the AVFoundation adapter, driven by the stand-in's player
/// simulator on Linux, checks every byte and prints what the origin sent on each pass. The second pass
/// must cost nothing.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play a generated media file twice through Spool from a local origin; show the traffic saved.")

    @Option(help: ArgumentHelp("Size of the generated media file in bytes.", valueName: "bytes"))
    var size: Int64 = 48 * 1024 * 1024

    @Option(
        help: ArgumentHelp(
            "Play across an emulated link: \(LinkProfile.all.map(\.name).joined(separator: ", ")). Adds a pass "
                + "without the cache.",
            valueName: "profile"))
    var link: String?

    func validate() throws {
        guard size >= 4 * 1024 * 1024 else { throw ValidationError("--size must be at least 4194304 bytes") }
        if let link, LinkProfile.named(link) == nil {
            throw ValidationError(
                "unknown link profile '\(link)'; known: \(LinkProfile.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let seed: UInt64 = 2026
        origin.serve(.generated(length: size, seed: seed), at: "/media/demo.mp4", contentType: "video/mp4")
        let emulator = try link.flatMap(LinkProfile.named).map { try LinkEmulator(upstream: origin, profile: $0) }
        defer { emulator?.stop() }
        let url = emulator?.url(for: "/media/demo.mp4") ?? origin.url(for: "/media/demo.mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))

        print(
            "origin:  \(origin.baseURL) serving /media/demo.mp4, \(ByteCountText.format(size)) of generated video/mp4")
        if let emulator {
            print("link:    \(emulator.profile) between the player and the origin, at \(emulator.baseURL)")
        }
        print("cache:   \(directory.path)")
        print(
            "session: \(PlayerSession.steps(size: size).count) reads like a player's: probe, play, tail, seeks, each "
                + "abandoned part-way\n"
        )
        let columns = ["pass", "played", "from origin", "from cache", "requests", "first byte", "longest wait", "time"]
        print(columns.map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined())
        if let emulator {
            // The same reads straight across the link, as a player without a cache makes them.
            origin.resetCounters()
            let direct = try PlayerSession.playDirect(url: url, port: emulator.port, size: size)
            print(row("no cache", direct, fromOrigin: origin.bodyBytesSent, cached: 0, requests: origin.requestCount))
        }
        var originBytesPerPass: [Int64] = []
        for pass in 1...2 {
            origin.resetCounters()
            let result = try await PlayerSession.play(cache: cache, url: url, size: size, seed: seed)
            // A pass ends with reads the player abandoned: their requests run on for a grace, and a link still
            // carries what was sent before the player stopped. Closing the cache ends them; once the origin has
            // gone quiet their bytes are counted for the pass that made them, not the next one (which, over a
            // 100 ms link, used to see tens of KB of them). The next pass opens the cache anew, as an app would
            // after a relaunch.
            await cache.close()
            await Self.settle(origin, roundTrip: emulator?.profile.roundTrip ?? 0)
            let fromOrigin = origin.bodyBytesSent
            originBytesPerPass.append(fromOrigin)
            print(
                row(
                    "\(pass)", result, fromOrigin: fromOrigin, cached: max(0, result.bytesPlayed - fromOrigin),
                    requests: origin.requestCount))
            cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        }
        await cache.close()
        print("\nevery byte played matched the origin's; every loading request was answered as AVPlayer requires.")
        guard originBytesPerPass[1] == 0 else {
            throw CommandFailure(
                message: "the second pass fetched \(originBytesPerPass[1]) bytes from the origin; it must fetch none")
        }
        print("second pass: served entirely from the cache, zero bytes from the origin.")
    }
}

extension Demo {
    /// Waits until the origin has sent nothing for two round trips of the link (at least 100 ms), at most
    /// 10 s: what was in flight when a pass ended has arrived by then.
    private static func settle(_ origin: TestOrigin, roundTrip: TimeInterval) async {
        let quiet = max(0.1, 2 * roundTrip)
        let deadline = Date().addingTimeInterval(10)
        var sent = origin.bodyBytesSent
        var unchangedSince = Date()
        while Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            let now = origin.bodyBytesSent
            if now != sent {
                (sent, unchangedSince) = (now, Date())
            } else if Date().timeIntervalSince(unchangedSince) >= quiet {
                return
            }
        }
    }

    /// One line of the table.
    private func row(_ pass: String, _ result: PlayerSession.Result, fromOrigin: Int64, cached: Int64, requests: Int)
        -> String
    {
        [
            pass, ByteCountText.format(result.bytesPlayed), ByteCountText.format(fromOrigin),
            ByteCountText.format(cached),
            "\(requests)", result.timeToFirstByte.map { String(format: "%.1f ms", $0 * 1000) } ?? "-",
            String(format: "%.1f ms", result.longestWait * 1000), String(format: "%.2f s", result.duration),
        ].map { $0.padding(toLength: 14, withPad: " ", startingAt: 0) }.joined()
    }
}

/// A player's reads of one file: where each starts and how much of it the player takes before moving on.
enum PlayerSession {
    struct Step {
        let offset: Int64
        /// Bytes taken before the read is abandoned; `nil` for a bounded read taken whole.
        let take: Int64
        /// Whether the read asks for everything to the end (and is then abandoned), as AVPlayer does.
        let toEnd: Bool
    }

    struct Result {
        var bytesPlayed: Int64 = 0
        var timeToFirstByte: TimeInterval?
        var longestWait: TimeInterval = 0
        var duration: TimeInterval = 0
    }

    /// Plays the steps with a plain HTTP client straight from `url`'s server at `port`, no cache: each
    /// request `bytes=N-` (or the bounded range) cut once the player has what it takes.
    static func playDirect(url: URL, port: Int, size: Int64) throws -> Result {
        let reader = RangeReader(port: port)
        let target = RangeReader.target(of: url)
        var result = Result()
        let start = Date()
        for step in steps(size: size) {
            let range = step.toEnd ? "bytes=\(step.offset)-" : "bytes=\(step.offset)-\(step.offset + step.take - 1)"
            let transfer = try reader.get(target, range: range, limit: step.take)
            guard transfer.status == 206, transfer.bodyBytes == step.take else {
                throw CommandFailure(
                    message: "the origin answered \(range) with \(transfer.status), \(transfer.bodyBytes) bytes")
            }
            if result.timeToFirstByte == nil { result.timeToFirstByte = transfer.firstBodyByte }
            result.longestWait = max(result.longestWait, transfer.longestGap)
            result.bytesPlayed += transfer.bodyBytes
        }
        result.duration = Date().timeIntervalSince(start)
        return result
    }

    static func steps(size: Int64) -> [Step] {
        let mb: Int64 = 1024 * 1024
        return [
            Step(offset: 0, take: 2, toEnd: false),  // content-information probe
            Step(offset: 0, take: 1536 * 1024, toEnd: true),  // start playing
            Step(offset: size - 256 * 1024, take: 256 * 1024, toEnd: false),  // the index at the tail
            Step(offset: 0, take: 3 * mb, toEnd: true),  // play on from the start
            Step(offset: size * 4 / 10, take: 2 * mb, toEnd: true),  // seek forward
            Step(offset: size / 10, take: mb, toEnd: true),  // seek back
            Step(offset: size * 3 / 4, take: 1536 * 1024, toEnd: true),  // seek forward again
            Step(offset: size * 4 / 10 + mb, take: 2 * mb, toEnd: true),  // back into a partly cached stretch
        ]
    }

    #if os(Linux)
    /// The steps as AVPlayer's loading requests: the probe carries the content-information request.
    static func script(size: Int64) -> PlayerScript {
        PlayerScript(
            requests: steps(size: size).enumerated().map { index, step in
                ScriptedRequest(
                    info: index == 0, data: true, offset: step.offset, length: step.toEnd ? nil : step.take,
                    cancelAfter: step.toEnd ? step.take : nil)
            }, toEndReadLimit: nil)
    }

    /// Plays the steps through a `SpoolAsset`, the stand-in's simulator checking every byte and request.
    static func play(cache: SpoolCache, url: URL, size: Int64, seed: UInt64) async throws -> Result {
        let asset = SpoolAsset(url: url, cache: cache)
        let start = Date()
        let report = await PlayerSimulator(
            asset: asset, expectedBytes: { TestContent.generatedBytes(seed: seed, range: $0) },
            resourceLength: size, expectedContentType: "public.mpeg-4"
        ).run(script(size: size))
        withExtendedLifetime(asset) {}
        guard report.passed else {
            throw CommandFailure(
                message: "the player simulator found: \(report.failures.prefix(3).joined(separator: "; "))")
        }
        return Result(
            bytesPlayed: report.bytesPlayed, timeToFirstByte: report.timeToFirstByte, longestWait: report.longestWait,
            duration: Date().timeIntervalSince(start))
    }
    #else
    /// Plays the steps through the engine, checking every byte against the generated content.
    static func play(cache: SpoolCache, url: URL, size: Int64, seed: UInt64) async throws -> Result {
        var result = Result()
        let start = Date()
        for step in steps(size: size) {
            var position = step.offset
            var lastByte = Date()
            let asked = Date()
            let stream = cache.read(url, from: step.offset, length: step.toEnd ? nil : step.take)
            for try await chunk in stream {
                result.longestWait = max(result.longestWait, Date().timeIntervalSince(lastByte))
                if result.timeToFirstByte == nil { result.timeToFirstByte = Date().timeIntervalSince(asked) }
                let wanted = min(Int64(chunk.count), step.offset + step.take - position)
                let expected = TestContent.generatedBytes(seed: seed, range: position..<(position + wanted))
                guard chunk.prefix(Int(wanted)) == expected else {
                    throw CommandFailure(message: "wrong bytes at offset \(position)")
                }
                position += wanted
                result.bytesPlayed += wanted
                lastByte = Date()
                if position >= step.offset + step.take { break }
            }
        }
        result.duration = Date().timeIntervalSince(start)
        return result
    }
    #endif
}
