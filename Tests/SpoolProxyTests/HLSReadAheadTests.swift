import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy reads the next segments of the variant a player plays into the cache, within its window, and
/// follows the player to another variant.
final class HLSReadAheadTests: XCTestCase {
    func testTheNextSegmentsWithinTheWindowAreCachedAndTheWindowMovesWithThePlayer() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(readAheadSeconds: 2.5))
        let segments = try writeStream(fixture, name: "a", count: 6)
        let paths = Self.proxyPaths(in: try await Self.get(try fixture.proxyURL("a.m3u8").path, from: fixture))
        XCTAssertEqual(paths.count, 6)

        _ = try await Self.get(paths[0], from: fixture)
        try await waitUntilCached(fixture, segments[1...2])
        let cachedBytes1 = await cachedBytes(fixture, segments[3])
        XCTAssertEqual(cachedBytes1, 0, "2.5 s past segment 0 ends at segment 2")

        _ = try await Self.get(paths[2], from: fixture)
        try await waitUntilCached(fixture, segments[3...4])
        let cachedBytes2 = await cachedBytes(fixture, segments[5])
        XCTAssertEqual(cachedBytes2, 0)
        let requests = try fixture.nginx.accessLog().filter { $0.path.hasSuffix(".ts") }.map(\.path)
        XCTAssertEqual(requests.count, Set(requests).count, "each segment fetched once: \(requests)")
    }

    /// On loopback a read-ahead ends before the player switches (the slow-link case below sees it stopped);
    /// here, that the new variant is read ahead from where the player asked.
    func testSwitchingVariantMovesTheReadAheadToTheNewVariant() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(readAheadSeconds: 1.5))
        let low = try writeStream(fixture, name: "low", count: 4)
        let high = try writeStream(fixture, name: "high", count: 4)
        try writeMaster(fixture)
        func get(_ path: some StringProtocol) async throws -> Data { try await Self.get(path, from: fixture) }
        let lines = Self.proxyPaths
        let variants = lines(try await get(try fixture.proxyURL("master.m3u8").path))
        XCTAssertEqual(variants.count, 2)
        let lowSegments = lines(try await get(variants[0]))
        _ = try await get(lowSegments[0])
        try await waitUntilCached(fixture, low[1...1])

        let highSegments = lines(try await get(variants[1]))
        _ = try await get(highSegments[1])
        try await waitUntilCached(fixture, high[2...2])
        let cachedBytes3 = await cachedBytes(fixture, high[3])
        XCTAssertEqual(cachedBytes3, 0, "1.5 s past segment 1 ends at segment 2")
        let cachedBytes4 = await cachedBytes(fixture, low[3])
        let cachedBytes5 = await cachedBytes(fixture, high[0])
        XCTAssertEqual(cachedBytes5 + cachedBytes4, 0, "only ahead of the player")
    }

    /// Over a slow link a read-ahead is still running when the player switches variant: it stops there.
    func testSwitchingVariantOverASlowLinkStopsTheOtherVariantsReadAhead() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(readAheadSeconds: 30))
        // 150 KB segments take about 0.3 s each at 4 Mbit/s.
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "slow", roundTrip: 0.02, bitsPerSecond: 4_000_000))
        defer { link.stop() }
        _ = try writeStream(fixture, name: "low", count: 8)
        _ = try writeStream(fixture, name: "high", count: 8)
        // Through the link: the URLs the proxy caches.
        let high = (0..<8).map { link.url(for: "/high\($0).ts") }
        try writeMaster(fixture)
        func get(_ path: some StringProtocol) async throws -> Data { try await Self.get(path, from: fixture) }
        let lines = Self.proxyPaths
        let variants = lines(try await get(try fixture.proxy.url(for: link.url(for: "/master.m3u8")).path))
        _ = try await get(lines(try await get(variants[0]))[0])
        // The low variant's read-ahead has begun (30 s of window: all seven segments after the first).
        let highSegments = lines(try await get(variants[1]))
        _ = try await get(highSegments[0])
        try await waitUntilCached(fixture, high[1...2])
        let low = Set(try fixture.nginx.accessLog().map(\.path).filter { $0.hasPrefix("/low") && $0.hasSuffix(".ts") })
        XCTAssertLessThanOrEqual(low.count, 3, "the low variant's read-ahead went on after the switch: \(low.sorted())")
        XCTAssertTrue(low.contains("/low0.ts"))
    }

    func testNoReadAheadWhenTurnedOff() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(readAheadSeconds: 0))
        let segments = try writeStream(fixture, name: "a", count: 3)
        let paths = Self.proxyPaths(in: try await Self.get(try fixture.proxyURL("a.m3u8").path, from: fixture))
        _ = try await Self.get(try XCTUnwrap(paths.first), from: fixture)
        await fixture.proxy.readAheadSettled()
        let cachedBytes6 = await cachedBytes(fixture, segments[1])
        XCTAssertEqual(cachedBytes6, 0)
    }

    /// A VOD media playlist `NAME.m3u8` of `count` one-second segments of generated bytes; their origin URLs.
    private func writeStream(_ fixture: ProxyFixture, name: String, count: Int) throws -> [URL] {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
        var urls: [URL] = []
        for index in 0..<count {
            try fixture.serveGenerated("\(name)\(index).ts", length: 150_000, seed: UInt64(100 + index))
            text += "#EXTINF:1.0,\n\(name)\(index).ts\n"
            urls.append(fixture.originURL("\(name)\(index).ts"))
        }
        try (text + "#EXT-X-ENDLIST\n").write(
            to: fixture.www.appendingPathComponent("\(name).m3u8"), atomically: true, encoding: .utf8)
        return urls
    }

    /// A master naming `low.m3u8` (100 kbit/s) and `high.m3u8` (900 kbit/s).
    private func writeMaster(_ fixture: ProxyFixture) throws {
        let master =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=900000\nhigh.m3u8\n"
        try master.write(to: fixture.www.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
    }

    /// The body of the proxy's answer to `path`, as a player gets it.
    private static func get(_ path: some StringProtocol, from fixture: ProxyFixture) async throws -> Data {
        let url = try XCTUnwrap(URL(string: String(path), relativeTo: try XCTUnwrap(fixture.proxy.baseURL)))
        return try await offPool { try Curl.fetch(url).body }
    }

    /// The proxy paths a rewritten playlist names, in order.
    private static func proxyPaths(in body: Data) -> [Substring] {
        String(decoding: body, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("/w/") }
    }

    private func cachedBytes(_ fixture: ProxyFixture, _ url: URL) async -> Int64 {
        await fixture.cache.cachedRanges(for: Resource(url: url)).byteCount
    }

    /// Waits for the read-ahead to stop (no polling: the proxy says when none runs), then checks `urls` are
    /// cached whole.
    private func waitUntilCached(
        _ fixture: ProxyFixture, _ urls: ArraySlice<URL>, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        await fixture.proxy.readAheadSettled()
        var missing: [String] = []
        for url in urls where await cachedBytes(fixture, url) != 150_000 { missing.append(url.lastPathComponent) }
        XCTAssertEqual(missing, [], "not read ahead", file: file, line: line)
    }
}
