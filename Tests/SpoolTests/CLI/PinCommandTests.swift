import Foundation
import Spool
import SpoolTesting
import XCTest

/// `spool pin`, `unpin`, and the pins in `spool ls` and `spool info`, end to end against a test origin.
final class PinCommandTests: XCTestCase {
    private func entry(_ url: URL, in directory: URL) async throws -> CacheEntry? {
        try await SpoolCache(configuration: SpoolConfiguration(directory: directory)).entry(for: url)
    }

    private func listedLine(_ url: URL, _ runner: CommandRunner) throws -> String? {
        let list = try runner.run(["ls"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.hasPrefix("SIZE\tCACHED\tLAST ACCESS\tPINNED\tURL\n"), list.stdout)
        return list.stdout.split(separator: "\n").map(String.init).first { $0.hasSuffix("\t" + url.absoluteString) }
    }

    func testPinDownloadsEverythingAndListingsShowThePin() async throws {
        let fixture = try HTTPFixture(test: self, length: 3_000_000, seed: 51)
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let url = fixture.url.absoluteString

        let pin = try runner.run(["pin", url, "-H", "X-Pin-Test: yes"])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        XCTAssertTrue(pin.stderr.contains("progress: 100% (3000000 of 3000000 bytes)"), pin.stderr)
        XCTAssertTrue(
            pin.stderr.contains("pinned 3.0 MB of \(url): 3.0 MB from the origin, 0 B from the cache"), pin.stderr)
        XCTAssertTrue(
            fixture.origin.requests.allSatisfy { $0.headers["x-pin-test"] == "yes" }, "headers reach the origin")
        XCTAssertEqual(fixture.origin.bodyBytesSent, 3_000_000)
        let foundEntry1 = try await entry(fixture.url, in: fixture.directory)
        let pinned = try XCTUnwrap(foundEntry1)
        XCTAssertTrue(pinned.isPinned)
        XCTAssertEqual(pinned.cachedBytes, 3_000_000)

        let info = try runner.run(["info", url])
        XCTAssertTrue(info.stdout.contains("cached:         3000000 bytes (100.0%)"), info.stdout)
        XCTAssertTrue(info.stdout.contains("pinned:         yes"), info.stdout)
        let line = try XCTUnwrap(try listedLine(fixture.url, runner))
        XCTAssertEqual(line.split(separator: "\t").map(String.init)[0...1], ["3.0 MB", "100.0%"])
        XCTAssertEqual(line.split(separator: "\t")[3], "pinned")

        let again = try runner.run(["pin", url])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(
            again.stderr.contains("0 B from the origin"), "pinning a cached resource fetches nothing: \(again.stderr)")

        fixture.origin.stop()
        let output = fixture.directory.appendingPathComponent("offline.bin")
        let offline = try runner.run(["get", url, "-o", output.path])
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertTrue(try Data(contentsOf: output) == fixture.bytes(0..<3_000_000), "a pinned resource plays offline")
    }

    /// The summary's network figure is what crossed the network: from an origin that ignores ranges, pinning
    /// the rest of a file takes the whole body (what the first half cost before is not counted again).
    func testPinSaysWhatCrossedTheNetworkFromAnOriginThatIgnoresRanges() async throws {
        let fixture = try HTTPFixture(test: self, length: 8_000_000, seed: 53)
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let url = fixture.url.absoluteString
        let half = try runner.run(["get", url, "--range", "0-999999", "-o", "/dev/null"])
        XCTAssertEqual(half.status, 0, half.stderr)
        let halfEntry = try await entry(fixture.url, in: fixture.directory)
        XCTAssertLessThan(try XCTUnwrap(halfEntry).cachedBytes, 8_000_000)
        // The origin stops honouring ranges (a CDN node that does not): the rest comes with the whole body.
        fixture.origin.behaviour.ignoresRange = true
        let pin = try runner.run(["pin", url])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        let summary = try XCTUnwrap(pin.stderr.split(separator: "\n").first { $0.hasPrefix("pinned 8.0 MB") })
        // Before, it said 8.0 MB minus what was cached: the bytes still missing, not those that came.
        XCTAssertTrue(summary.contains(": 8.0 MB from the origin"), String(summary))
    }

    func testUnpinRemovesTheMarkAndKeepsTheBytes() async throws {
        let fixture = try HTTPFixture(test: self, length: 400_000, seed: 52)
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let url = fixture.url.absoluteString
        XCTAssertEqual(try runner.run(["pin", url]).status, 0)

        let unpin = try runner.run(["unpin", url])
        XCTAssertEqual(unpin.status, 0, unpin.stderr)
        XCTAssertEqual(unpin.stdout, "unpinned \(url)\n")
        let line = try XCTUnwrap(try listedLine(fixture.url, runner))
        XCTAssertEqual(line.split(separator: "\t")[3], "-")
        XCTAssertFalse(line.contains("pinned"))
        let info = try runner.run(["info", url])
        XCTAssertTrue(info.stdout.contains("pinned:         no"), info.stdout)
        XCTAssertTrue(info.stdout.contains("(100.0%)"), "unpinning keeps the bytes: \(info.stdout)")
        let foundEntry2 = try await entry(fixture.url, in: fixture.directory)
        let unpinned = try XCTUnwrap(foundEntry2)
        XCTAssertFalse(unpinned.isPinned)
        XCTAssertEqual(unpinned.cachedBytes, 400_000)

        let twice = try runner.run(["unpin", url])
        XCTAssertEqual(twice.status, 0, twice.stderr)
        XCTAssertEqual(twice.stdout, "not pinned: \(url)\n")
        let unknown = try runner.run(["unpin", fixture.origin.url(for: "/never.mp3").absoluteString])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("not cached"), unknown.stderr)
    }

    func testPinOfAnHLSMasterTakesTheChosenVariantItsRenditionAndTheirKeys() async throws {
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("spool-pin-hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: www) }
        try HLSSample.write(in: www)
        let nginx = try NginxOrigin(serving: www)
        defer { nginx.stop() }
        let cacheDirectory = www.appendingPathComponent(".cache")
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = cacheDirectory.path
        let masterURL = nginx.url(for: "master.m3u8").absoluteString

        let pin = try runner.run(["pin", masterURL, "--bandwidth", "1M"])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        XCTAssertTrue(pin.stderr.contains("pinned 11 of 11 resources"), pin.stderr)
        let chosen = ["low.m3u8", "audio.m3u8"].map { nginx.url(for: $0).absoluteString }
        XCTAssertTrue(pin.stderr.contains("media playlists: \(chosen.joined(separator: ", "))"), pin.stderr)
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: cacheDirectory))
        for name in HLSSample.lowVariant {
            let foundEntry3 = await cache.entry(for: nginx.url(for: name))
            let entry = try XCTUnwrap(foundEntry3, name)
            XCTAssertTrue(entry.isPinned && entry.cachedBytes == entry.info.length, name)
        }
        for name in HLSSample.highVariant {
            let foundEntry4 = await cache.entry(for: nginx.url(for: name))
            XCTAssertNil(foundEntry4, "\(name): not the chosen variant")
        }

        let both = try runner.run(["pin", masterURL, "--bandwidth", "1M", "--all-variants"])
        XCTAssertNotEqual(both.status, 0)
        XCTAssertTrue(both.stderr.contains("choose one of"), both.stderr)
        let badRate = try runner.run(["pin", masterURL, "--bandwidth", "fast"])
        XCTAssertNotEqual(badRate.status, 0)
        XCTAssertTrue(badRate.stderr.contains("--bandwidth: bits per second"), badRate.stderr)
        let notHLS = try runner.run(["pin", nginx.url(for: "low0.ts").absoluteString, "--all-variants"])
        XCTAssertNotEqual(notHLS.status, 0)
        XCTAssertTrue(notHLS.stderr.contains("are for HLS playlists"), notHLS.stderr)
    }

    func testPinFailuresAndUsageErrors() throws {
        let fixture = try HTTPFixture(test: self, length: 1000)
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let missing = try runner.run(["pin", fixture.origin.url(for: "/missing.mp3").absoluteString])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("404"), missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").filter { $0.hasPrefix("spool:") }.count, 1, missing.stderr)
        XCTAssertEqual(try runner.run(["pin"]).status, 2)
        XCTAssertEqual(try runner.run(["unpin"]).status, 2)
        XCTAssertEqual(try runner.run(["pin", "ftp://127.0.0.1/x.mp3"]).status, 1)
        XCTAssertEqual(try runner.run(["pin", fixture.url.absoluteString, "-H", "no colon"]).status, 2)
    }

    /// Waits for the engine's eviction (until then nothing is evicted, and this passes trivially).
    func testPinnedResourceLargerThanTheSizeLimitIsKeptWhole() async throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000, seed: 53)
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = fixture.directory.path
        let pin = try runner.run(["pin", fixture.url.absoluteString, "--max-size", "500KB"])
        XCTAssertEqual(pin.status, 0, pin.stderr)
        let other = fixture.origin.url(for: "/other.mp3")
        fixture.origin.serve(.generated(length: 300_000, seed: 54), at: "/other.mp3", contentType: "audio/mpeg")
        XCTAssertEqual(try runner.run(["get", other.absoluteString, "--max-size", "500KB"]).status, 0)
        let foundEntry5 = try await entry(fixture.url, in: fixture.directory)
        let pinned = try XCTUnwrap(foundEntry5)
        XCTAssertTrue(pinned.isPinned)
        XCTAssertEqual(pinned.cachedBytes, 2_000_000)
    }
}
