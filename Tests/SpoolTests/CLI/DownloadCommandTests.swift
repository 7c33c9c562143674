import Foundation
import SpoolTesting
import XCTest

@testable import Spool

#if canImport(Glibc)
import Glibc
#endif

/// `spool download`: a queue of ten items over flaky Wi-Fi, killed twice, ends byte for byte with each byte
/// across the link about once; the list, pause, resume and remove commands share the queue.
final class DownloadCommandTests: XCTestCase {
    private static let length: Int64 = 700_000

    func testTenDownloadsOverFlakyWiFiSurviveTwoKillsWithEachByteFetchedOnce() async throws {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        let link = try LinkEmulator(upstream: origin, profile: .flakyWiFi)
        addTeardownBlock {
            link.stop()
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let urls = (0..<10).map { index -> String in
            origin.serve(.generated(length: Self.length, seed: UInt64(200 + index)), at: "/album/\(index).mp3")
            return link.url(for: "/album/\(index).mp3").absoluteString
        }
        let cache = ["--cache", directory.path, "--reserve", "0"]

        // The first run adds the album and is killed once two tracks are done; the second, `run`, once two
        // more are.
        var killed = 0
        for (arguments, completed) in [(["download", "add"] + urls, 2), (["download", "run"], 4)] {
            let process = try Durability.startSpool(arguments + cache, test: self)
            let reached = try await withinHangBound(seconds: 120) {
                while process.isRunning, Self.completed(in: directory) < completed {
                    try? await Task.sleep(for: .milliseconds(20))
                }
                return process.isRunning
            }
            XCTAssertEqual(reached, true, "still running with \(completed) completed: \(process.stderr)")
            process.send(SIGKILL)
            _ = await Durability.waitForExit(process, timeout: 20)
            killed += 1
        }
        XCTAssertEqual(killed, 2)
        let last = try await Durability.spool(["download", "run"] + cache, timeout: 180)
        XCTAssertEqual(last.status, 0, last.stderr)
        let list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertEqual(
            list.stdoutText.components(separatedBy: "\n").filter { $0.contains("completed") }.count, 10, list.stdoutText
        )

        // Every track whole, from disk alone.
        origin.stop()
        let offline = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        for (index, url) in urls.enumerated() {
            let data = try await collect(offline.read(URL(string: url)!))
            XCTAssertEqual(data, TestContent.generatedBytes(seed: UInt64(200 + index), range: 0..<Self.length))
        }
        await offline.close()
        // Each byte crossed the link about once: beyond the album, what was in flight at each kill and at each
        // of the link's resets (at most its window and a read's buffer, 256 KiB each way) and the HTTP heads.
        let total = 10 * Self.length
        let crossed = link.counters.bytesFromUpstream
        let inFlight = Int64(2 + 2) * 512 * 1024
        print("[download] 10 × \(Self.length) bytes over flaky-wifi, 2 kills: \(crossed) bytes crossed the link")
        XCTAssertLessThanOrEqual(crossed, total + inFlight, "bytes fetched again after the kills")
    }

    /// How many downloads the queue in `directory` has written down as completed.
    private static func completed(in directory: URL) -> Int {
        let data = (try? Data(contentsOf: directory.appendingPathComponent("downloads.json"))) ?? Data()
        return String(decoding: data, as: UTF8.self).components(separatedBy: "\"completed\"").count - 1
    }

    func testListPauseResumeAndRemoveShareTheQueue() async throws {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let urls = (0..<2).map { index -> String in
            origin.serve(.generated(length: 300_000, seed: UInt64(300 + index)), at: "/ep/\(index).mp3")
            return origin.url(for: "/ep/\(index).mp3").absoluteString
        }
        let cache = ["--cache", directory.path, "--reserve", "0"]
        let added = try await Durability.spool(
            ["download", "add", "--no-wait", "--title", "One", "--title", "Two"] + urls + cache)
        XCTAssertEqual(added.status, 0, added.stderr)
        let paused = try await Durability.spool(["download", "pause", urls[0]] + cache.prefix(2))
        XCTAssertEqual(paused.status, 0, paused.stderr)
        XCTAssertTrue(paused.stdoutText.contains("\(urls[0]): paused"), paused.stdoutText)
        let run = try await Durability.spool(["download", "run"] + cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        var list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertTrue(list.stdoutText.contains("paused"), list.stdoutText)
        XCTAssertTrue(list.stdoutText.contains("completed"), list.stdoutText)
        XCTAssertTrue(list.stdoutText.contains("Two"), list.stdoutText)

        let resumed = try await Durability.spool(["download", "resume", urls[0]] + cache.prefix(2))
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let second = try await Durability.spool(["download", "run"] + cache)
        XCTAssertEqual(second.status, 0, second.stderr)
        list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertEqual(list.stdoutText.components(separatedBy: "completed").count - 1, 2, list.stdoutText)

        // One unknown id among known ones changes nothing, and says so.
        let mixed = try await Durability.spool(["download", "rm", urls[1], "nothing-like-it"] + cache.prefix(2))
        XCTAssertEqual(mixed.status, 1)
        XCTAssertTrue(mixed.stderr.contains("nothing was changed, the other ids included"), mixed.stderr)
        // `rm`, as the top-level command is named.
        let removed = try await Durability.spool(["download", "rm", urls[1]] + cache.prefix(2))
        XCTAssertEqual(removed.status, 0, removed.stderr)
        let unknown = try await Durability.spool(["download", "pause", "nothing-like-it"] + cache.prefix(2))
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no download nothing-like-it"), unknown.stderr)
        XCTAssertFalse(unknown.stderr.contains("nothing was changed"), "one id: nothing else to tell")
        let opened = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let gone = await opened.entry(for: URL(string: urls[1])!)
        XCTAssertNil(gone, "a removed download's bytes are gone")
        let kept = await opened.entry(for: URL(string: urls[0])!)
        XCTAssertEqual(kept?.isPinned, true)
        await opened.close()
        list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertFalse(list.stdoutText.contains("Two"), list.stdoutText)

        // The top-level `rm` of a downloaded track: the queue no longer says it is available offline.
        let deleted = try await Durability.spool(["rm", urls[0]] + cache.prefix(2))
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertTrue(deleted.stdoutText.contains("a completed download goes back to the queue"), deleted.stdoutText)
        list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertFalse(list.stdoutText.contains("completed"), list.stdoutText)
        XCTAssertTrue(list.stdoutText.contains("queued (its bytes were removed from the cache"), list.stdoutText)
        let again = try await Durability.spool(["download", "run"] + cache)
        XCTAssertEqual(again.status, 0, again.stderr)
        list = try await Durability.spool(["download", "ls", "--cache", directory.path])
        XCTAssertTrue(list.stdoutText.contains("completed"), "downloaded again: \(list.stdoutText)")
    }

    func testWhileServeRunsTheQueueTheDownloadCommandsGoToIt() async throws {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let urls = (0..<3).map { index -> String in
            origin.serve(.generated(length: 300_000, seed: UInt64(400 + index)), at: "/ep/\(index).mp3")
            return origin.url(for: "/ep/\(index).mp3").absoluteString
        }
        let serve = try BackgroundProcess(
            executable: try SpoolExecutable.url(),
            arguments: ["serve", "--port", "0", "--cache", directory.path, "--download-reserve", "0"])
        addTeardownBlock { serve.stop() }
        let base = try serve.firstLine()
        XCTAssertTrue(base.hasPrefix("http://127.0.0.1:"), base)
        let cache = ["--cache", directory.path]

        // serve holds the queue: `add` goes to its API and follows the downloads there until they complete.
        let added = try await Durability.spool(
            ["download", "add", "--title", "One", "--title", "Two"] + urls[..<2] + cache)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stderr.contains("spool serve (pid"), added.stderr)
        XCTAssertTrue(added.stderr.contains("\(urls[1]): completed"), added.stderr)
        var list = try await Durability.spool(["download", "ls"] + cache)
        XCTAssertEqual(list.stdoutText.components(separatedBy: "completed").count - 1, 2, list.stdoutText)
        XCTAssertTrue(list.stdoutText.contains("Two"), list.stdoutText)

        let third = try await Durability.spool(["download", "add", "--no-wait", urls[2]] + cache)
        XCTAssertEqual(third.status, 0, third.stderr)
        // `run` follows serve's queue until every download is done.
        let run = try await Durability.spool(["download", "run"] + cache)
        XCTAssertEqual(run.status, 0, run.stderr)
        let removed = try await Durability.spool(["download", "remove", urls[1]] + cache)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertTrue(removed.stdoutText.contains("\(urls[1]): removed"), removed.stdoutText)
        let unknown = try await Durability.spool(["download", "pause", "nothing-like-it"] + cache)
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no download nothing-like-it"), unknown.stderr)
        // `spool clear` from this process while serve runs the queue: serve's queue hears of it at once and
        // downloads the two tracks again (`run` follows it until they are done).
        let requestsBeforeClear = origin.requests.count
        let cleared = try await Durability.spool(["clear"] + cache)
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertTrue(cleared.stdoutText.contains("2 completed downloads go back to the queue"), cleared.stdoutText)
        XCTAssertTrue(cleared.stdoutText.contains("the running serve downloads them again"), cleared.stdoutText)
        let refill = try await Durability.spool(["download", "run"] + cache)
        XCTAssertEqual(refill.status, 0, refill.stderr)
        XCTAssertGreaterThanOrEqual(origin.requests.count, requestsBeforeClear + 2, "the cleared tracks came again")

        serve.send(SIGTERM)
        XCTAssertEqual(serve.waitForExit(timeout: 30), 0, serve.stderr)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("serve.json").path),
            "serve takes its record away")
        XCTAssertTrue(serve.stderr.contains("spool: download \(urls[2]): completed"), serve.stderr)
        // What serve did is written down for the next process.
        list = try await Durability.spool(["download", "ls"] + cache)
        XCTAssertEqual(list.stdoutText.components(separatedBy: "completed").count - 1, 2, list.stdoutText)
        XCTAssertFalse(list.stdoutText.contains("Two"), list.stdoutText)
        let opened = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        for (index, url) in urls.enumerated() where index != 1 {
            let played = try await collect(opened.read(URL(string: url)!))
            XCTAssertEqual(played, TestContent.generatedBytes(seed: UInt64(400 + index), range: 0..<300_000))
        }
        let gone = await opened.entry(for: URL(string: urls[1])!)
        XCTAssertNil(gone, "a removed download's bytes are gone")
        await opened.close()
        // Three tracks, two of them again after the clear: no byte fetched more often than it was needed.
        XCTAssertLessThanOrEqual(origin.bodyBytesSent, 5 * 300_000, "\(origin.requests)")
    }
}
