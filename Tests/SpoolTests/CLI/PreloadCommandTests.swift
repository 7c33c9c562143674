import Foundation
import Spool
import SpoolTesting
import XCTest

/// `spool preload` and `spool stats`, end to end against a test origin.
final class PreloadCommandTests: XCTestCase {
    func testPreloadStoresTheTargetAndStatsCountIt() async throws {
        let fixture = try HTTPFixture(test: self, length: 3_000_000, seed: 61, path: "/clip.bin", type: "video/mp4")
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let url = fixture.url.absoluteString

        let bytes = try runner.run(["preload", url, "--bytes", "300KB"])
        XCTAssertEqual(bytes.status, 0, bytes.stderr)
        XCTAssertTrue(bytes.stderr.contains("preloaded \(url): 300000 bytes (bytes)"), bytes.stderr)
        var cache = try fixture.makeCache()
        let storedRanges1 = await cache.cachedRanges(for: Resource(url: fixture.url))
        XCTAssertEqual(storedRanges1.ranges, [0..<300_000])

        // No MP4 inside: the seconds fall back to 1 MB.
        let seconds = try runner.run(["preload", url, "--seconds", "2"])
        XCTAssertEqual(seconds.status, 0, seconds.stderr)
        XCTAssertTrue(seconds.stderr.contains("2 s (layout not understood: fallback bytes)"), seconds.stderr)
        cache = try fixture.makeCache()
        let storedRanges2 = await cache.cachedRanges(for: Resource(url: fixture.url))
        XCTAssertEqual(storedRanges2.ranges, [0..<1_000_000])
        XCTAssertEqual(fixture.origin.bodyBytesSent, 1_000_000, "the second preload fetched only what was missing")

        XCTAssertEqual(try runner.run(["get", url, "-o", "/dev/null"]).status, 0)
        let null = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        XCTAssertEqual(
            null[.type] as? FileAttributeType, .typeCharacterSpecial, "get -o writes into /dev/null, never over it")
        let stats = try runner.run(["stats", "--json"])
        XCTAssertEqual(stats.status, 0, stats.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["bytesServedFromCache"] as? Int, 1_000_000)
        XCTAssertEqual(json["bytesServedFromOrigin"] as? Int, 2_000_000)
        XCTAssertEqual(json["bytesFetched"] as? Int, 3_000_000)
        let text = try runner.run(["stats"])
        XCTAssertTrue(text.stdout.contains("hit ratio          33.3%"), text.stdout)
    }

    func testPreloadOptionsAreChecked() throws {
        let runner = try CommandRunner()
        let url = "http://127.0.0.1:9/x.mp4"
        XCTAssertEqual(try runner.run(["preload", url, "--seconds", "2", "--bytes", "1MB"]).status, 2)
        XCTAssertEqual(try runner.run(["preload", url, "--seconds", "0"]).status, 2)
        XCTAssertEqual(try runner.run(["preload", url, "--bytes", "lots"]).status, 2)
        XCTAssertEqual(try runner.run(["preload"]).status, 2)
    }
}
