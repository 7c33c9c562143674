import Foundation
import Spool
import SpoolTesting
import XCTest

/// `--max-size` and `--max-age` on `spool get`, `pin` and `serve`: what they accept, what they refuse, and
/// that they reach the cache.
final class LimitOptionTests: XCTestCase {
    func testSizesInDecimalAndBinaryUnitsAndPlainBytes() throws {
        let fixture = try HTTPFixture(test: self, length: 10_000)
        let runner = try CommandRunner()
        let sizes: [(String, Int64)] = [
            ("2GB", 2_000_000_000), ("500MB", 500_000_000), ("750KB", 750_000), ("1.5GiB", 1_610_612_736),
            ("64 KiB", 65_536), ("3mib", 3_145_728), ("1TB", 1_000_000_000_000), ("2gb", 2_000_000_000),
            ("123456", 123_456), ("10B", 10), ("0.5KB", 500), ("2.3MB", 2_300_000),
            ("9007199254740993", 9_007_199_254_740_993),
        ]
        for (text, bytes) in sizes {
            let result = try runner.run([
                "get", fixture.url.absoluteString, "--max-size", text, "--cache", fixture.directory.path,
            ])
            XCTAssertEqual(result.status, 0, "\(text): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("at most \(bytes) bytes (\(text))"),
                "\(text) is \(bytes) bytes: \(result.stderr)")
        }
    }

    func testAgesInSecondsMinutesHoursAndDays() throws {
        let fixture = try HTTPFixture(test: self, length: 10_000)
        let runner = try CommandRunner()
        let ages: [(String, Int)] = [
            ("30d", 2_592_000), ("12h", 43_200), ("45m", 2700), ("90s", 90), ("1.5h", 5400), ("7D", 604_800),
        ]
        for (text, seconds) in ages {
            let result = try runner.run([
                "get", fixture.url.absoluteString, "--max-age", text, "--cache", fixture.directory.path,
            ])
            XCTAssertEqual(result.status, 0, "\(text): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("unused for \(seconds) s (\(text))"), "\(text) is \(seconds) s: \(result.stderr)"
            )
        }
    }

    func testGarbageIsAUsageErrorNamingTheOptionAndTheValue() throws {
        let fixture = try HTTPFixture(test: self, length: 1000)
        let runner = try CommandRunner()
        let base = ["get", fixture.url.absoluteString, "--cache", fixture.directory.path]
        let sizes = [
            "garbage", "2G", "GB", "-5MB", "1.5", "0", "0KB", "1e9", "0x10", "1..5GB", ".5GB", "5 MB extra",
            "99999999999TB", "99999999999999999999", "1.5B", "\u{0663}MB", "2 parsecs",
        ]
        for text in sizes {
            let result = try runner.run(base + ["--max-size=\(text)"])
            XCTAssertEqual(result.status, 2, "--max-size \(text)")
            XCTAssertTrue(
                result.stderr.contains("--max-size: '\(text)'"),
                "the message names the option and the value: \(result.stderr)")
            XCTAssertEqual(fixture.origin.requestCount, 0, "nothing is fetched after a usage error")
        }
        let ages = ["30", "30x", "d", "-1d", "0s", "0.5s", "1w", "1d2h", "thirty days", "1e3s"]
        for text in ages {
            let result = try runner.run(base + ["--max-age=\(text)"])
            XCTAssertEqual(result.status, 2, "--max-age \(text)")
            XCTAssertTrue(
                result.stderr.contains("--max-age: '\(text)'"),
                "the message names the option and the value: \(result.stderr)")
        }
        for option in ["--max-size=", "--max-age="] {
            XCTAssertEqual(try runner.run(base + [option]).status, 2, "\(option) without a value")
        }
        let unit = try runner.run(base + ["--max-size", "2G"])
        XCTAssertTrue(
            unit.stderr.contains("GB, TB (powers of 1000) or KiB"), "the message lists the units: \(unit.stderr)")
        let bare = try runner.run(base + ["--max-age", "30"])
        XCTAssertTrue(bare.stderr.contains("needs a unit"), bare.stderr)
    }

    func testPinAndServeTakeTheLimitsToo() throws {
        let fixture = try HTTPFixture(test: self, length: 10_000)
        let runner = try CommandRunner()
        let cache = ["--cache", fixture.directory.path]
        let pin = try runner.run(
            ["pin", fixture.url.absoluteString, "--max-size", "1.5GiB", "--max-age", "30d"] + cache)
        XCTAssertEqual(pin.status, 0, pin.stderr)
        XCTAssertTrue(
            pin.stderr.contains("at most 1610612736 bytes (1.5GiB), entries unused for 2592000 s (30d)"), pin.stderr)
        XCTAssertEqual(try runner.run(["pin", fixture.url.absoluteString, "--max-size", "lots"] + cache).status, 2)
        XCTAssertEqual(
            try runner.run(["serve", "--max-age", "forever"] + cache).status, 2, "serve refuses before it listens")

        let serve = try BackgroundProcess(
            executable: runner.executable, arguments: ["serve", "--max-size", "2GB", "--max-age", "12h"] + cache)
        defer { serve.stop() }
        XCTAssertTrue(try serve.firstLine().hasPrefix("http://127.0.0.1:"))
        let deadline = Date().addingTimeInterval(10)
        while !serve.stderr.contains("cache limits"), Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertTrue(
            serve.stderr.contains("at most 2000000000 bytes (2GB), entries unused for 43200 s (12h)"), serve.stderr)
        serve.send(SIGTERM)
        XCTAssertEqual(serve.waitForExit(), 0)
    }

    /// Waits for the engine's eviction.
    func testLimitsReachTheCache() async throws {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        for (name, seed) in [("a", 1), ("b", 2), ("c", 3)] {
            origin.serve(
                .generated(length: 1_000_000, seed: UInt64(seed)), at: "/\(name).mp4", contentType: "video/mp4")
        }
        let runner = try CommandRunner()
        let cache = ["--cache", directory.path]
        for name in ["a", "b"] {
            let result = try runner.run(
                ["get", origin.url(for: "/\(name).mp4").absoluteString, "--max-size", "1.5MB"] + cache)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        do {
            let opened = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
            let totalBytes = await opened.totalBytes
            XCTAssertLessThanOrEqual(totalBytes, 1_500_000, "--max-size holds")
            let foundEntry1 = await opened.entry(for: origin.url(for: "/a.mp4"))
            XCTAssertEqual(
                foundEntry1?.cachedBytes ?? 0, 0, "a, the least recently used, went")
            let foundEntry2 = await opened.entry(for: origin.url(for: "/b.mp4"))
            XCTAssertEqual(foundEntry2?.cachedBytes, 1_000_000)
        }
        try await Task.sleep(nanoseconds: 2_200_000_000)
        let aged = try runner.run(["get", origin.url(for: "/c.mp4").absoluteString, "--max-age", "2s"] + cache)
        XCTAssertEqual(aged.status, 0, aged.stderr)
        let opened = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let listedEntries = await opened.entries()
        XCTAssertEqual(
            listedEntries.map(\.url), [origin.url(for: "/c.mp4").absoluteString],
            "--max-age 2s evicted b, unused for 2.2 s")
    }
}
