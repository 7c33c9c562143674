import Foundation
import Spool
import SpoolTesting
import XCTest

/// `spool bench startup` on a small cache: its table, and a kept cache directory reused by the next run.
final class BenchCommandTests: XCTestCase {
    func testStartupBenchmarkPrintsItsTableAndRemovesItsTemporaryCache() throws {
        let result = try CommandRunner().run(["bench", "startup", "--entries", "200", "--runs", "3"])
        XCTAssertEqual(result.status, 0, result.stderr)
        for text in [
            "entries: 200 of 16384 bytes; 200 created now", "origin stopped", "median", "open SpoolCache",
            "open SpoolCache with limits",
            "first read: 16384 bytes of one entry", "200 entries", "3276800 bytes", "(temporary, removed afterwards)",
        ] {
            XCTAssertTrue(result.stdout.contains(text), "'\(text)' in:\n\(result.stdout)")
        }
        let cachePath = try XCTUnwrap(
            result.stdout.split(separator: "\n").first?.split(separator: " ").dropFirst().first)
        XCTAssertFalse(FileManager.default.fileExists(atPath: String(cachePath)), "the temporary cache is gone")
    }

    func testAGivenCacheIsKeptAndReused() async throws {
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let runner = try CommandRunner()
        let arguments = [
            "bench", "startup", "--entries", "40", "--entry-size", "5000", "--runs", "1", "--cache", directory.path,
        ]
        let first = try runner.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("40 created now"), first.stdout)
        do {
            let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
            let listedEntries = await cache.entries()
            XCTAssertEqual(listedEntries.count, 40)
            let totalBytes = await cache.totalBytes
            XCTAssertEqual(totalBytes, 200_000)
        }
        let second = try runner.run(arguments)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(
            second.stdout.contains("0 created now") && second.stdout.contains("40 already there"), second.stdout)
        XCTAssertEqual(try runner.run(["bench", "startup", "--entries", "0"]).status, 2)
        XCTAssertEqual(try runner.run(["bench", "startup", "--runs", "0"]).status, 2)
    }
}
