import Foundation
import Spool
import SpoolTesting
import XCTest

/// Each way an origin can misbehave gives the reader correct bytes or a clear error, and leaves the cache
/// holding only correct bytes; over URLSession, and over AsyncHTTPClient in
/// `MisbehavingOriginOverAsyncHTTPClientTests`.
class MisbehavingOriginTests: XCTestCase {
    private let fastRetries = FetchPolicy(retryDelay: 0.01)

    /// The transport every test here goes through.
    var transport: OriginTransport { .urlSession }

    private func makeFixture(length: Int64) throws -> HTTPFixture {
        try HTTPFixture(test: self, transport: transport, length: length)
    }

    /// After a failure: with the origin behaving again, a full read is correct.
    private func assertCacheConsistent(_ fixture: HTTPFixture, file: StaticString = #filePath, line: UInt = #line)
        async throws
    {
        fixture.origin.behaviour = TestOriginBehaviour()
        let cache = try fixture.makeCache()
        let entry = await cache.entry(for: fixture.url)
        for range in entry?.cachedRanges.ranges ?? [] {
            let stored = try await collect(cache.read(fixture.url, from: range.lowerBound, length: Int64(range.count)))
            XCTAssertEqual(stored, fixture.bytes(range), "cached bytes \(range) are wrong", file: file, line: line)
        }
        let all = try await collect(cache.read(fixture.url))
        XCTAssertEqual(all, fixture.bytes(0..<fixture.length), file: file, line: line)
    }

    func testServerIgnoringRangesStillGivesCorrectBytes() async throws {
        let fixture = try makeFixture(length: 2_000_000)
        fixture.origin.behaviour.ignoresRange = true
        let cache = try fixture.makeCache()
        let middle = try await collect(cache.read(fixture.url, from: 1_200_000, length: 300_000))
        XCTAssertEqual(middle, fixture.bytes(1_200_000..<1_500_000))
        let foundEntry1 = await cache.entry(for: fixture.url)
        XCTAssertEqual(foundEntry1?.info.acceptsRanges, false)
        // What passed by on the way to the offset was cached too.
        let foundEntry2 = await cache.entry(for: fixture.url)
        XCTAssertTrue(foundEntry2?.cachedRanges.contains(0..<1_200_000) ?? false)
        try await assertCacheConsistent(fixture)
    }

    func testServerErrorIsReportedAndNothingIsCached() async throws {
        let fixture = try makeFixture(length: 500_000)
        let cache = try fixture.makeCache(policy: fastRetries)
        // The content information comes with the first bytes, which are cached; the error comes later.
        _ = try await collect(cache.read(fixture.url, from: 0, length: 1_000))
        let foundEntry3 = await cache.entry(for: fixture.url)
        let before = try XCTUnwrap(foundEntry3?.cachedRanges)
        fixture.origin.resetCounters()
        fixture.origin.behaviour.serverErrorStatus = 503
        let (data, error) = await collectUntilFailure(cache.read(fixture.url, from: 300_000))
        XCTAssertEqual(data.count, 0)
        XCTAssertEqual(error as? SpoolError, .httpStatus(503))
        let foundEntry4 = await cache.entry(for: fixture.url)
        XCTAssertEqual(foundEntry4?.cachedRanges, before, "an error body is never cached")
        // Each piece in flight (at most two) is tried 1 + retryLimit times, then the error is final.
        let gets = fixture.origin.requests.filter { $0.method == "GET" }.count
        XCTAssertGreaterThanOrEqual(gets, 1 + fastRetries.retryLimit)
        XCTAssertLessThanOrEqual(gets, 2 * (1 + fastRetries.retryLimit))
        try await assertCacheConsistent(fixture)
    }

    func testDroppedConnectionsResumeWhereTheyBroke() async throws {
        let fixture = try makeFixture(length: 1_500_000)
        fixture.origin.behaviour.dropConnectionAfterBytes = 200_000
        let cache = try fixture.makeCache(policy: fastRetries)
        let data = try await collect(cache.read(fixture.url))
        XCTAssertEqual(data, fixture.bytes(0..<1_500_000))
        XCTAssertLessThanOrEqual(fixture.origin.bodyBytesSent, 1_500_000 + 2 * 200_000)
        try await assertCacheConsistent(fixture)
    }

    func testConnectionDroppedBeforeAnyByteFailsClearly() async throws {
        let fixture = try makeFixture(length: 300_000)
        let cache = try fixture.makeCache(policy: fastRetries)
        _ = try await collect(cache.read(fixture.url, from: 0, length: 1_000))
        fixture.origin.behaviour.dropConnectionAfterBytes = 0
        let (data, error) = await collectUntilFailure(cache.read(fixture.url, from: 200_000))
        XCTAssertEqual(data.count, 0)
        XCTAssertNotNil(error as? SpoolError, "got \(String(describing: error))")
        try await assertCacheConsistent(fixture)
    }

    func testShortBodyNeverYieldsWrongBytes() async throws {
        let fixture = try makeFixture(length: 800_000)
        fixture.origin.behaviour.shortBodyBy = 1000
        let cache = try fixture.makeCache(policy: fastRetries)
        let (data, error) = await collectUntilFailure(cache.read(fixture.url))
        XCTAssertEqual(data, fixture.bytes(0..<Int64(data.count)), "what arrived is correct")
        if data.count < 800_000 {
            // Spool notices a short body itself; the HTTP client may notice first and report a broken transfer.
            switch error as? SpoolError {
            case .truncatedBody?, .network?: break
            default: XCTFail("got \(String(describing: error))")
            }
        }
        try await assertCacheConsistent(fixture)
    }

    func testChangedContentIsDetectedAndOldBytesDropped() async throws {
        let fixture = try makeFixture(length: 1_000_000)
        let cache = try fixture.makeCache()
        _ = try await collect(cache.read(fixture.url, from: 0, length: 400_000))
        let oldTag = await cache.entry(for: fixture.url)?.info.entityTag
        fixture.origin.serve(.generated(length: 1_000_000, seed: 99), at: "/media/file.mp3", contentType: "audio/mpeg")
        // Cached (old) bytes first, then a gap whose fetch reveals the new version: never joined.
        let (mixed, error) = await collectUntilFailure(cache.read(fixture.url, from: 300_000, length: 400_000))
        XCTAssertEqual(error as? SpoolError, .resourceChanged)
        XCTAssertEqual(mixed, fixture.bytes(300_000..<(300_000 + Int64(mixed.count))))
        let entry = await cache.entry(for: fixture.url)
        XCTAssertNotEqual(entry?.info.entityTag, oldTag)
        let fresh = try await collect(cache.read(fixture.url))
        XCTAssertEqual(fresh, TestContent.generatedBytes(seed: 99, range: 0..<1_000_000))
    }

    func testShrunkResourceGivesAClearError() async throws {
        let fixture = try makeFixture(length: 1_000_000)
        let cache = try fixture.makeCache()
        // The cache knows the old length and a few bytes; bytes past the new end are not stored, so the read
        // asks the origin, which says the resource shrank. (A first request for the content information alone
        // may store the whole resource, whose old bytes a read would then be served.)
        _ = try await collect(cache.read(fixture.url, from: 0, length: 1000))
        fixture.origin.serve(.generated(length: 500_000, seed: 3), at: "/media/file.mp3", contentType: "audio/mpeg")
        let (data, error) = await collectUntilFailure(cache.read(fixture.url, from: 600_000, length: 100_000))
        XCTAssertEqual(data.count, 0)
        guard case .rangeNotSatisfiable? = error as? SpoolError else {
            return XCTFail("got \(String(describing: error))")
        }
        let fresh = try await collect(cache.read(fixture.url))
        XCTAssertEqual(fresh, TestContent.generatedBytes(seed: 3, range: 0..<500_000))
    }

    func testThrottledOriginStreamsBytesAsTheyArrive() async throws {
        let fixture = try makeFixture(length: 600_000)
        fixture.origin.behaviour.throttleBytesPerSecond = 400_000
        let cache = try fixture.makeCache()
        var sentAtFirstChunk: Int64?
        var total = 0
        for try await chunk in cache.read(fixture.url) {
            if sentAtFirstChunk == nil { sentAtFirstChunk = fixture.origin.bodyBytesSent }
            total += chunk.count
        }
        XCTAssertEqual(total, 600_000)
        // The origin's count, not a stopwatch: when the first bytes reached the reader, the throttled origin
        // had sent a small part of the file, so they were handed over as they arrived, not when a piece (or
        // the whole) was complete.
        let sent = try XCTUnwrap(sentAtFirstChunk)
        XCTAssertLessThan(sent, 200_000, "bytes are handed over as they arrive, not when a piece completes")
    }
}

/// `MisbehavingOriginTests` over AsyncHTTPClient. Test discovery on Linux finds only the test methods a class
/// declares itself, so each is repeated here.
final class MisbehavingOriginOverAsyncHTTPClientTests: MisbehavingOriginTests {
    override var transport: OriginTransport { .asyncHTTPClient }

    override func testServerIgnoringRangesStillGivesCorrectBytes() async throws {
        try await super.testServerIgnoringRangesStillGivesCorrectBytes()
    }

    override func testServerErrorIsReportedAndNothingIsCached() async throws {
        try await super.testServerErrorIsReportedAndNothingIsCached()
    }

    override func testDroppedConnectionsResumeWhereTheyBroke() async throws {
        try await super.testDroppedConnectionsResumeWhereTheyBroke()
    }

    override func testConnectionDroppedBeforeAnyByteFailsClearly() async throws {
        try await super.testConnectionDroppedBeforeAnyByteFailsClearly()
    }

    override func testShortBodyNeverYieldsWrongBytes() async throws {
        try await super.testShortBodyNeverYieldsWrongBytes()
    }

    override func testChangedContentIsDetectedAndOldBytesDropped() async throws {
        try await super.testChangedContentIsDetectedAndOldBytesDropped()
    }

    override func testShrunkResourceGivesAClearError() async throws {
        try await super.testShrunkResourceGivesAClearError()
    }

    override func testThrottledOriginStreamsBytesAsTheyArrive() async throws {
        try await super.testThrottledOriginStreamsBytesAsTheyArrive()
    }
}

/// `MisbehavingOriginTests` over URLSession as on Apple's platforms, whose bodies pause (`PushingTransport`).
final class MisbehavingOriginOverPushedBodiesTests: MisbehavingOriginTests {
    override var transport: OriginTransport { .pushedBodies }

    override func testServerIgnoringRangesStillGivesCorrectBytes() async throws {
        try await super.testServerIgnoringRangesStillGivesCorrectBytes()
    }

    override func testServerErrorIsReportedAndNothingIsCached() async throws {
        try await super.testServerErrorIsReportedAndNothingIsCached()
    }

    override func testDroppedConnectionsResumeWhereTheyBroke() async throws {
        try await super.testDroppedConnectionsResumeWhereTheyBroke()
    }

    override func testConnectionDroppedBeforeAnyByteFailsClearly() async throws {
        try await super.testConnectionDroppedBeforeAnyByteFailsClearly()
    }

    override func testShortBodyNeverYieldsWrongBytes() async throws {
        try await super.testShortBodyNeverYieldsWrongBytes()
    }

    override func testChangedContentIsDetectedAndOldBytesDropped() async throws {
        try await super.testChangedContentIsDetectedAndOldBytesDropped()
    }

    override func testShrunkResourceGivesAClearError() async throws {
        try await super.testShrunkResourceGivesAClearError()
    }

    override func testThrottledOriginStreamsBytesAsTheyArrive() async throws {
        try await super.testThrottledOriginStreamsBytesAsTheyArrive()
    }
}
