import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy's playback reports: one per item a player read through it, finished once the item is idle, with
/// its start told apart (cold, partly cached, from the cache), its bytes attributed (origin, cache, a
/// preload) and its waits on the origin counted; `GET /playback` answers them as JSON.
final class ProxyPlaybackReportTests: XCTestCase {
    private static let length: Int64 = 2_000_000

    /// A fixture whose items' reports finish 0.3 s after their last request, and the reports as they come.
    private func makeFixture() async throws -> (ProxyFixture, AsyncStream<PlaybackReport>) {
        var configuration = ProxyConfiguration()
        configuration.playbackIdleInterval = 0.3
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        return (fixture, fixture.cache.playback.reports())
    }

    /// Reads all of `name` through the proxy with curl.
    private func play(_ fixture: ProxyFixture, _ name: String, range: String? = nil) async throws {
        let url = try fixture.proxyURL(name)
        let output = try await Curl.run(
            ["-sf", "-o", "/dev/null"] + (range.map { ["-r", $0] } ?? []) + [url.absoluteString])
        XCTAssertEqual(output.status, 0, output.stderr)
    }

    func testColdPartlyCachedAndCachedStartsAreToldApartWithTheirBytesAttributed() async throws {
        let (fixture, reports) = try await makeFixture()
        for (index, name) in ["cold.bin", "partly.bin", "preloaded.bin"].enumerated() {
            try fixture.serveGenerated(name, length: Self.length, seed: UInt64(40 + index))
        }
        // A cold item: every byte from the origin, in one request.
        try await play(fixture, "cold.bin")
        let cold = try await reports.nextReport()
        XCTAssertEqual(cold.start, .cold)
        XCTAssertEqual(cold.path, .proxy)
        XCTAssertEqual(cold.item, fixture.originURL("cold.bin").absoluteString)
        XCTAssertEqual(cold.bytesFromOrigin, Self.length)
        XCTAssertEqual(cold.bytesFromCache, 0)
        XCTAssertEqual([cold.requestsFromOrigin, cold.requestsFromCache], [1, 0])
        XCTAssertNotNil(cold.timeToFirstByte)
        XCTAssertNotNil(cold.timeToStart)
        XCTAssertNil(cold.stalls, "the proxy cannot see its players' stalls")

        // Played again, once its report is done: a new item, all from the cache.
        try await play(fixture, "cold.bin")
        let replay = try await reports.nextReport()
        XCTAssertEqual(replay.start, .fromCache)
        XCTAssertEqual(replay.bytesFromCache, Self.length)
        XCTAssertEqual(replay.bytesFromOrigin, 0)
        XCTAssertEqual(replay.bytesFromPreload, 0, "nothing of it was preloaded")
        XCTAssertEqual([replay.requestsFromOrigin, replay.requestsFromCache], [0, 1])
        XCTAssertEqual(replay.originWaits, 0)

        // 200 kB prefetched of a 512 KiB start: partly cached.
        try await fixture.cache.prefetch(fixture.originURL("partly.bin"), length: 200_000)
        try await play(fixture, "partly.bin")
        let partly = try await reports.nextReport()
        XCTAssertEqual(partly.start, .partlyCached)
        XCTAssertEqual(partly.bytesFromCache, 200_000)
        XCTAssertEqual(partly.bytesFromPreload, 200_000)
        XCTAssertEqual(partly.bytesFromOrigin, Self.length - 200_000)

        // 1 MB preloaded: the start came from the cache, a preload's bytes.
        try await fixture.cache.prefetch(fixture.originURL("preloaded.bin"), length: 1_000_000)
        try await play(fixture, "preloaded.bin")
        let preloaded = try await reports.nextReport()
        XCTAssertEqual(preloaded.start, .fromCache)
        XCTAssertEqual(preloaded.bytesFromPreload, 1_000_000)
        XCTAssertEqual(preloaded.bytesFromOrigin, Self.length - 1_000_000)

        // The summary splits them; `GET /playback` answers it with the reports, with the control token only.
        let summary = await fixture.cache.playback.summary()
        XCTAssertEqual(summary.all.items, 4)
        XCTAssertEqual(summary.cold?.items, 1)
        XCTAssertEqual(summary.partlyCached?.items, 1)
        XCTAssertEqual(summary.fromCache?.items, 2)
        let playbackURL = try XCTUnwrap(fixture.proxy.baseURL).appendingPathComponent("playback")
        let refused = try await offPool { try Curl.fetch(playbackURL) }
        XCTAssertEqual(refused.status, 401)
        let authorization = ["--header", "Authorization: Bearer \(fixture.proxy.controlToken)"]
        let (status, _, body) = try await offPool { try Curl.fetch(playbackURL, authorization) }
        XCTAssertEqual(status, 200)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual((json["reports"] as? [Any])?.count, 4)
        let all = try XCTUnwrap((json["summary"] as? [String: Any])?["all"] as? [String: Any])
        XCTAssertEqual(all["items"] as? Int, 4)
    }

    func testAPlayerThatSendsClientDataReportsItsStallsThroughIt() async throws {
        let (fixture, reports) = try await makeFixture()
        try fixture.serveGenerated("told.bin", length: Self.length, seed: 45)
        let url = try fixture.proxyURL("told.bin").absoluteString
        // Three requests of one item, in one curl process so that they come within the item's idle interval
        // however busy the machine: CMCD in header fields, the second saying the buffer ran dry since the first
        // (`bs`), then in a query item saying so again.
        let query = try XCTUnwrap("bs,br=800".addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let requests: [[String]] = [
            ["-r", "0-199999", "-H", "CMCD-Object: br=800", url],
            ["-r", "200000-399999", "-H", "CMCD-Status: bs", "-H", "CMCD-Object: br=800", url],
            ["-r", "400000-599999", url + "?CMCD=" + query],
        ]
        let arguments = requests.map { ["-sf", "-o", "/dev/null"] + $0 }.joined(separator: ["--next"])
        let output = try await Curl.run(Array(arguments))
        XCTAssertEqual(output.status, 0, output.stderr)
        let told = try await reports.nextReport()
        XCTAssertEqual(told.requestsFromOrigin + told.requestsFromCache, 3, "one item")
        XCTAssertEqual(told.stalls, 2, "the player said its buffer ran dry twice")

        // A player that sends no CMCD tells nothing: no stalls reported, rather than none counted.
        try await play(fixture, "told.bin")
        let silent = try await reports.nextReport()
        XCTAssertNil(silent.stalls)
    }

    func testAWaitOnTheOriginAfterTheStartIsCountedAndAStoppedProxyFinishesItsItems() async throws {
        var configuration = ProxyConfiguration()
        configuration.playbackIdleInterval = 3600
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        let reports = fixture.cache.playback.reports()
        try fixture.serveGenerated("slow.bin", length: Self.length, seed: 50)
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "test", roundTrip: 0.002, bitsPerSecond: 200_000_000))
        defer { link.stop() }
        let url = try fixture.proxy.url(for: link.url(for: "/slow.bin"))
        // The start, then a seek the origin holds up: the link moves nothing for 0.6 s.
        let start = try await Curl.run(["-sf", "-o", "/dev/null", "-r", "0-99999", url.absoluteString])
        XCTAssertEqual(start.status, 0, start.stderr)
        link.blackout(seconds: 0.6)
        let seek = try await Curl.run(["-sf", "-o", "/dev/null", "-r", "1500000-", url.absoluteString])
        XCTAssertEqual(seek.status, 0, seek.stderr)
        // The item is still open (an hour's idle interval): stopping the proxy finishes it.
        await fixture.proxy.stop()
        let report = try await reports.nextReport()
        XCTAssertEqual(report.start, .cold)
        XCTAssertEqual(report.requestsFromOrigin, 2)
        XCTAssertEqual(report.bytesFromOrigin, 100_000 + Self.length - 1_500_000)
        XCTAssertEqual(report.originWaits, 1)
        XCTAssertGreaterThanOrEqual(report.originWaitTime, 0.5)
    }
}
