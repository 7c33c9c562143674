import Foundation
import Spool
import SpoolTesting
import XCTest

/// `SpoolCache.statistics`: served from the cache and from the origin, fetched, evicted; kept across
/// restarts and processes; a damaged file costs the counts only.
final class CacheStatisticsTests: XCTestCase {
    private func readAll(_ cache: SpoolCache, _ url: URL, length: Int64? = nil) async throws -> Int {
        var count = 0
        for try await chunk in cache.read(url, length: length) { count += chunk.count }
        return count
    }

    func testServedBytesAreSplitByWhereTheyCameFrom() async throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000, seed: 3)
        let cache = try fixture.makeCache()
        let statistics1 = await cache.statistics
        XCTAssertNil(statistics1.hitRatio)
        _ = try await readAll(cache, fixture.url, length: 500_000)
        var statistics = await cache.statistics
        XCTAssertEqual(statistics.bytesServedFromOrigin, 500_000)
        XCTAssertEqual(statistics.bytesServedFromCache, 0)
        XCTAssertGreaterThanOrEqual(statistics.bytesFetched, 500_000)
        _ = try await readAll(cache, fixture.url)
        statistics = await cache.statistics
        XCTAssertEqual(statistics.bytesServedFromCache, 500_000, "the first 500 kB were on disk the second time")
        XCTAssertEqual(statistics.bytesServedFromOrigin, 2_000_000)
        XCTAssertEqual(statistics.bytesFetched, 2_000_000, "nothing fetched twice")
        XCTAssertEqual(try XCTUnwrap(statistics.hitRatio), 0.2, accuracy: 1e-9)
        // A prefetch fetches but serves nobody.
        fixture.origin.serve(.generated(length: 300_000, seed: 4), at: "/other.bin", contentType: "video/mp4")
        try await cache.prefetch(Resource(url: fixture.origin.url(for: "/other.bin")))
        let statistics2 = await cache.statistics
        XCTAssertEqual(statistics2.bytesFetched, 2_300_000)
        let statistics3 = await cache.statistics
        XCTAssertEqual(statistics3.bytesServed, 2_500_000)
        await cache.close()
    }

    func testCountsAddUpAcrossRestartsAndADamagedFileStartsThemAgain() async throws {
        let fixture = try HTTPFixture(test: self, length: 1_000_000, seed: 5)
        let first = try fixture.makeCache()
        _ = try await readAll(first, fixture.url)
        let started = await first.statistics.since
        await first.close()
        let second = try fixture.makeCache()
        let statistics4 = await second.statistics
        XCTAssertEqual(statistics4.bytesServedFromOrigin, 1_000_000, "written on close")
        _ = try await readAll(second, fixture.url)
        await second.flushStatistics()
        // Another instance sees what the second wrote, as another process would.
        let reader = try fixture.makeCache()
        let statistics5 = await reader.statistics
        XCTAssertEqual(statistics5.bytesServedFromCache, 1_000_000)
        let statistics6 = await reader.statistics
        XCTAssertEqual(statistics6.bytesServedFromOrigin, 1_000_000)
        let statistics7 = await reader.statistics
        XCTAssertEqual(statistics7.since.timeIntervalSince1970, started.timeIntervalSince1970, accuracy: 0.002)
        await second.close()
        await reader.close()

        try Data("{not json".utf8).write(to: fixture.directory.appendingPathComponent("statistics.json"))
        let afterDamage = try fixture.makeCache()
        let statistics8 = await afterDamage.statistics
        XCTAssertEqual(statistics8.bytesServed, 0)
        let reread = try await readAll(afterDamage, fixture.url)
        XCTAssertEqual(reread, 1_000_000, "the cache itself is unaffected")
        let statistics9 = await afterDamage.statistics
        XCTAssertEqual(statistics9.bytesServedFromCache, 1_000_000)
        await afterDamage.close()
        let decoded =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: fixture.directory.appendingPathComponent("statistics.json"))) as? [String: Any]
        XCTAssertEqual(decoded?["bytesServedFromCache"] as? Int, 1_000_000, "rewritten whole")
    }

    func testEvictedBytesAreCounted() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for index in 0..<3 {
            origin.serve(.generated(length: 1_000_000, seed: UInt64(index)), at: "/f\(index)", contentType: "video/mp4")
        }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 10), limits: CacheLimits(maxBytes: 2_200_000)))
        for index in 0..<3 { _ = try await readAll(cache, origin.url(for: "/f\(index)")) }
        await cache.enforceLimits()
        let statistics = await cache.statistics
        XCTAssertGreaterThanOrEqual(statistics.bytesEvicted, 800_000)
        let totalBytes = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes, 2_200_000)
        XCTAssertEqual(statistics.bytesFetched, 3_000_000)
        await cache.close()
    }
}
