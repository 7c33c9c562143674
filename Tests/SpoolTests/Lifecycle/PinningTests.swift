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
        let entry = try XCTUnwrap(cache.entry(for: fixture.url))
        XCTAssertEqual(entry.cachedBytes, 3_000_000, "pin returns when every byte is cached")
        XCTAssertEqual(entry.fractionCached, 1)
        XCTAssertTrue(entry.isPinned)
        XCTAssertEqual(cache.entries().first?.isPinned, true)
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
        XCTAssertEqual(cache.entry(for: fixture.url)?.cachedBytes, 2_000_000)
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
        let clock = PinningClock(start)
        let limit: Int64 = 1_000_000
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 10),
                limits: CacheLimits(maxBytes: limit, maxAge: 3600), clock: { clock.now }))

        try await cache.pin(pinned)
        XCTAssertEqual(cache.entry(for: pinned)?.cachedBytes, 2_000_000, "pinned whole although twice the limit")
        clock.advance(10)
        _ = try await collect(cache.read(other))
        cache.enforceLimits()
        XCTAssertEqual(cache.entry(for: pinned)?.cachedBytes, 2_000_000, "over the size limit, yet kept")
        XCTAssertEqual(cache.entry(for: other)?.cachedBytes ?? 0, 0, "the unpinned entry goes instead")
        clock.advance(7200)
        cache.enforceLimits()
        XCTAssertEqual(cache.entry(for: pinned)?.cachedBytes, 2_000_000, "over the age limit, yet kept")
        XCTAssertEqual(cache.entry(for: pinned)?.isPinned, true)

        await cache.unpin(pinned)
        XCTAssertEqual(cache.entry(for: pinned)?.isPinned, false)
        cache.enforceLimits()
        XCTAssertLessThanOrEqual(cache.totalBytes, limit, "unpinned, it counts against the size limit again")
        XCTAssertLessThan(cache.entry(for: pinned)?.cachedBytes ?? 0, 2_000_000)
        clock.advance(7200)
        cache.enforceLimits()
        XCTAssertEqual(cache.entry(for: pinned)?.cachedBytes ?? 0, 0, "and against the age limit")
        await cache.close()
    }

    func testUnpinKeepsTheBytes() async throws {
        let fixture = try HTTPFixture(test: self, length: 500_000, seed: 35)
        do {
            let cache = try fixture.makeCache()
            try await cache.pin(fixture.url)
            await cache.unpin(fixture.url)
            let entry = cache.entry(for: fixture.url)
            XCTAssertEqual(entry?.isPinned, false)
            XCTAssertEqual(entry?.cachedBytes, 500_000, "unpinning deletes nothing")
            await cache.close()
        }
        let reopened = try fixture.makeCache()
        XCTAssertEqual(reopened.entry(for: fixture.url)?.isPinned, false, "the unpin reached the index")
        XCTAssertEqual(reopened.entry(for: fixture.url)?.cachedBytes, 500_000)
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
            XCTAssertEqual(reopened.entry(for: fixture.url)?.isPinned, true, "the pin is in the index")
            XCTAssertEqual(reopened.entries().map(\.isPinned), [true])
        }

        let clock = PinningClock(Date().addingTimeInterval(30 * 86400))
        let strict = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: fixture.directory, origin: HTTPOrigin(timeout: 10),
                limits: CacheLimits(maxBytes: 1, maxAge: 1), clock: { clock.now }))
        strict.enforceLimits()
        let entry = strict.entry(for: fixture.url)
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
        XCTAssertNil(cache.entry(for: fixture.url))
        XCTAssertEqual(fixture.origin.requestCount, 0, "unpin asks the origin nothing")
    }
}

/// The time the cache sees in these tests, moved forward by hand.
private final class PinningClock: @unchecked Sendable {
    // @unchecked: `date` is only touched under `lock`.
    private let lock = NSLock()
    private var date: Date

    init(_ start: Date) {
        date = start
    }

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return date
    }

    func advance(_ seconds: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        date += seconds
    }
}
