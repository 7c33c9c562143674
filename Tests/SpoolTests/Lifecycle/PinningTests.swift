import Foundation
import Spool
import SpoolTesting
import XCTest

/// `SpoolCache.pin` and `unpin` against a real origin: pinning downloads everything, pinned entries outlive
/// every limit and every reopening, unpinned ones are evictable again.
final class PinningTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    func testPinDownloadsTheWholeResourceWhichThenPlaysOffline() async throws {
        let fixture = try HTTPFixture(test: self, length: 3_000_000, seed: 31)
        let cache = try fixture.makeCache()
        try await cache.pin(fixture.url)
        let foundEntry1 = await cache.entry(for: fixture.url)
        let entry = try XCTUnwrap(foundEntry1)
        XCTAssertEqual(entry.cachedBytes, 3_000_000, "pin returns when every byte is cached")
        XCTAssertEqual(entry.fractionCached, 1)
        XCTAssertTrue(entry.isPinned)
        let listedEntries1 = await cache.entries()
        XCTAssertEqual(listedEntries1.first?.isPinned, true)
        XCTAssertEqual(fixture.origin.bodyBytesSent, 3_000_000, "each byte fetched once")

        fixture.origin.stop()
        let offline = try await collect(cache.read(fixture.url))
        XCTAssertTrue(offline == fixture.bytes(0..<3_000_000), "the pinned resource plays with the origin gone")
        await cache.close()
    }

    func testPinFetchesOnlyTheMissingBytes() async throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000, seed: 32)
        let cache = try fixture.makeCache()
        _ = try await collect(cache.read(fixture.url, from: 0, length: 1_000_000))
        fixture.origin.resetCounters()
        try await cache.pin(fixture.url)
        let foundEntry2 = await cache.entry(for: fixture.url)
        XCTAssertEqual(foundEntry2?.cachedBytes, 2_000_000)
        let sent = fixture.origin.bodyBytesSent
        XCTAssertGreaterThanOrEqual(sent, 1_000_000)
        XCTAssertLessThanOrEqual(sent, 1_000_000 + 64 * 1024, "cached bytes are not fetched again (one block of slack)")
        await cache.close()
    }

    func testPinnedEntryOutlivesTheLimitsAndIsEvictableOnceUnpinned() async throws {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        origin.serve(.generated(length: 2_000_000, seed: 33), at: "/pinned.mp4", contentType: "video/mp4")
        origin.serve(.generated(length: 400_000, seed: 34), at: "/other.mp4", contentType: "video/mp4")
        let pinned = origin.url(for: "/pinned.mp4")
        let other = origin.url(for: "/other.mp4")
        let clock = SetDateClock(start)
        let limit: Int64 = 1_000_000
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 10),
                fetchPolicy: FetchPolicy(), limits: CacheLimits(maxBytes: limit, maxAge: 3600), clock: clock))

        try await cache.pin(pinned)
        let foundEntry3 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry3?.cachedBytes, 2_000_000, "pinned whole although twice the limit")
        clock.advance(10)
        _ = try await collect(cache.read(other))
        await cache.enforceLimits()
        let foundEntry4 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry4?.cachedBytes, 2_000_000, "over the size limit, yet kept")
        let foundEntry5 = await cache.entry(for: other)
        XCTAssertEqual(foundEntry5?.cachedBytes ?? 0, 0, "the unpinned entry goes instead")
        clock.advance(7200)
        await cache.enforceLimits()
        let foundEntry6 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry6?.cachedBytes, 2_000_000, "over the age limit, yet kept")
        let foundEntry7 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry7?.isPinned, true)

        await cache.unpin(pinned)
        let foundEntry8 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry8?.isPinned, false)
        await cache.enforceLimits()
        let totalBytes = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes, limit, "unpinned, it counts against the size limit again")
        let foundEntry9 = await cache.entry(for: pinned)
        XCTAssertLessThan(foundEntry9?.cachedBytes ?? 0, 2_000_000)
        clock.advance(7200)
        await cache.enforceLimits()
        let foundEntry10 = await cache.entry(for: pinned)
        XCTAssertEqual(foundEntry10?.cachedBytes ?? 0, 0, "and against the age limit")
        await cache.close()
    }

    func testUnpinKeepsTheBytes() async throws {
        let fixture = try HTTPFixture(test: self, length: 500_000, seed: 35)
        do {
            let cache = try fixture.makeCache()
            try await cache.pin(fixture.url)
            await cache.unpin(fixture.url)
            let entry = await cache.entry(for: fixture.url)
            XCTAssertEqual(entry?.isPinned, false)
            XCTAssertEqual(entry?.cachedBytes, 500_000, "unpinning deletes nothing")
            await cache.close()
        }
        let reopened = try fixture.makeCache()
        let foundEntry11 = await reopened.entry(for: fixture.url)
        XCTAssertEqual(foundEntry11?.isPinned, false, "the unpin reached the index")
        let foundEntry12 = await reopened.entry(for: fixture.url)
        XCTAssertEqual(foundEntry12?.cachedBytes, 500_000)
    }

    func testPinSurvivesReopeningEvenWithLimitsThatWouldEvictEverything() async throws {
        let fixture = try HTTPFixture(test: self, length: 1_000_000, seed: 36)
        do {
            let cache = try fixture.makeCache()
            try await cache.pin(fixture.url)
            await cache.close()
        }
        do {
            let reopened = try fixture.makeCache()
            let foundEntry13 = await reopened.entry(for: fixture.url)
            XCTAssertEqual(foundEntry13?.isPinned, true, "the pin is in the index")
            let listedEntries2 = await reopened.entries()
            XCTAssertEqual(listedEntries2.map(\.isPinned), [true])
        }

        let clock = SetDateClock(Date().addingTimeInterval(30 * 86400))
        let strict = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: fixture.directory, origin: HTTPOrigin(timeout: 10),
                fetchPolicy: FetchPolicy(), limits: CacheLimits(maxBytes: 1, maxAge: 1), clock: clock))
        await strict.enforceLimits()
        let entry = await strict.entry(for: fixture.url)
        XCTAssertEqual(entry?.isPinned, true)
        XCTAssertEqual(entry?.cachedBytes, 1_000_000, "a one-byte, one-second cache keeps its pinned entry")
        fixture.origin.stop()
        let offline = try await collect(strict.read(fixture.url))
        XCTAssertTrue(offline == fixture.bytes(0..<1_000_000))
    }

    func testUnpinningWhatIsNotCachedCreatesNothing() async throws {
        let fixture = try HTTPFixture(test: self, length: 1000, seed: 37)
        let cache = try fixture.makeCache()
        await cache.unpin(fixture.url)
        let foundEntry14 = await cache.entry(for: fixture.url)
        XCTAssertNil(foundEntry14)
        XCTAssertEqual(fixture.origin.requestCount, 0, "unpin asks the origin nothing")
    }
}
