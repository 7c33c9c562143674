import Foundation
import Spool
import SpoolTesting
import XCTest

/// A player that hangs up and asks again nearby, as ffmpeg does around a `moov` at the end: the requests it
/// left wait for `FetchPolicy.abandonedRequestGrace` (paused over AsyncHTTPClient, storing what arrives over
/// URLSession), and its next read takes their bytes in flight, so the origin sends no byte twice. Over an
/// emulated link, so bytes are in flight when it hangs up.
class AbandonedRequestTests: XCTestCase {
    var transport: OriginTransport { .urlSession }

    private let length: Int64 = 3_000_000
    private let profile = LinkProfile(name: "test", roundTrip: 0.04, bitsPerSecond: 16_000_000)

    /// A test origin behind the link, a cache with `grace`, and the file's URL across the link.
    private func makeLinkedCache(grace: TimeInterval) throws -> (HTTPFixture, SpoolCache, URL) {
        let fixture = try HTTPFixture(test: self, transport: transport, length: length)
        // What the origin counts as sent must be what crossed the link, not what loopback's buffers took.
        fixture.origin.behaviour.sendBufferBytes = 64 * 1024
        let link = try LinkEmulator(upstream: fixture.origin, profile: profile)
        addTeardownBlock { link.stop() }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: fixture.directory, origin: fixture.makeHTTPOrigin(),
                fetchPolicy: FetchPolicy(abandonedRequestGrace: grace)))
        return (fixture, cache, link.url(for: fixture.url.path))
    }

    /// Reads from 0 and hangs up after `leaveAt` bytes, reads the last 100 kB, waits `pause` seconds, then
    /// reads from `leaveAt` to 2 MB; returns the body bytes the origin sent more than once.
    private func playLikeFFmpegAroundATailMoov(grace: TimeInterval, pause: TimeInterval = 0) async throws -> Int64 {
        let (fixture, cache, url) = try makeLinkedCache(grace: grace)
        let leaveAt: Int64 = 800_000
        var head = Data()
        for try await chunk in cache.read(url) {
            head.append(chunk)
            if head.count >= leaveAt { break }
        }
        XCTAssertEqual(head, fixture.bytes(0..<Int64(head.count)))
        let tail = try await collect(cache.read(url, from: length - 100_000))
        XCTAssertEqual(tail, fixture.bytes(length - 100_000..<length))
        try await Task.sleep(nanoseconds: UInt64(pause * 1_000_000_000))
        let rest = try await collect(cache.read(url, from: leaveAt, length: 2_000_000 - leaveAt))
        XCTAssertEqual(rest, fixture.bytes(leaveAt..<2_000_000))
        await cache.close()
        return Self.sentTwice(fixture.origin.requests)
    }

    func testAPlayerThatComesBackWithinTheGraceCostsNoByteTwice() async throws {
        let twice = try await playLikeFFmpegAroundATailMoov(grace: 1.5)
        XCTAssertEqual(twice, 0, "the requests it left paused, and its next read took their bytes")
    }

    func testWithoutAGraceOrPastItTheBytesInFlightAreSentAgain() async throws {
        // The same play with the requests cancelled at once, or ended before the player came back: the
        // bytes they had in flight were lost. This shows the first test measures what it claims to.
        let cancelled = try await playLikeFFmpegAroundATailMoov(grace: 0)
        XCTAssertGreaterThan(cancelled, 0, "cancelled at once")
        let expired = try await playLikeFFmpegAroundATailMoov(grace: 0.2, pause: 1)
        // Over URLSession an abandoned request stores what keeps arriving, and its small pieces end within
        // the grace: nothing is lost there. Paused (AsyncHTTPClient, URLSession on Apple's platforms), what it
        // held is lost when it ends.
        if transport != .urlSession { XCTAssertGreaterThan(expired, 0, "ended after the grace") }
        print("[abandon] \(transport): sent twice with no grace \(cancelled) bytes, past the grace \(expired)")
    }

    func testClosingTheCacheEndsAbandonedRequestsAtOnce() async throws {
        // A grace of an hour: only ending the request at once lets `close()` return.
        let (_, cache, url) = try makeLinkedCache(grace: 3600)
        var received = 0
        for try await chunk in cache.read(url) {
            received += chunk.count
            if received >= 800_000 { break }
        }
        let closed: Void? = try await withinHangBound { await cache.close() }
        XCTAssertNotNil(closed, "close waits for no grace")
    }

    /// The body bytes the origin sent more than once, by the ranges it answered.
    static func sentTwice(_ requests: [RecordedRequest]) -> Int64 {
        var sent = ByteRangeSet()
        var twice: Int64 = 0
        for request in requests where request.bodyBytesSent > 0 {
            let start = request.range.flatMap { Int64($0.dropFirst("bytes=".count).prefix { $0.isNumber }) } ?? 0
            let range = start..<start + request.bodyBytesSent
            twice += sent.intersection(range).reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
            sent.insert(range)
        }
        return twice
    }
}

/// The same over AsyncHTTPClient, which stops reading the socket of a paused request.
final class AbandonedRequestOverAsyncHTTPClientTests: AbandonedRequestTests {
    override var transport: OriginTransport { .asyncHTTPClient }

    // Linux test discovery does not see inherited test methods.
    override func testAPlayerThatComesBackWithinTheGraceCostsNoByteTwice() async throws {
        try await super.testAPlayerThatComesBackWithinTheGraceCostsNoByteTwice()
    }
    override func testWithoutAGraceOrPastItTheBytesInFlightAreSentAgain() async throws {
        try await super.testWithoutAGraceOrPastItTheBytesInFlightAreSentAgain()
    }
    override func testClosingTheCacheEndsAbandonedRequestsAtOnce() async throws {
        try await super.testClosingTheCacheEndsAbandonedRequestsAtOnce()
    }
}

/// The same over URLSession as on Apple's platforms, whose bodies pause (`PushingTransport`).
final class AbandonedRequestOverPushedBodiesTests: AbandonedRequestTests {
    override var transport: OriginTransport { .pushedBodies }

    // Linux test discovery does not see inherited test methods.
    override func testAPlayerThatComesBackWithinTheGraceCostsNoByteTwice() async throws {
        try await super.testAPlayerThatComesBackWithinTheGraceCostsNoByteTwice()
    }
    override func testWithoutAGraceOrPastItTheBytesInFlightAreSentAgain() async throws {
        try await super.testWithoutAGraceOrPastItTheBytesInFlightAreSentAgain()
    }
    override func testClosingTheCacheEndsAbandonedRequestsAtOnce() async throws {
        try await super.testClosingTheCacheEndsAbandonedRequestsAtOnce()
    }
}
