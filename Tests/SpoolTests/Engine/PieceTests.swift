import Foundation
import Spool
import SpoolTesting
import XCTest

/// Open-ended reads never become one open-ended origin download; the first request brings the content
/// information; what an abandoned read wastes is about what was in flight.
final class PieceTests: XCTestCase {
    /// On loopback a round trip costs next to nothing, so a read keeps little in flight: pieces of what
    /// arrives in a request's cost, at most `FetchPolicy.requestCostPieceLimit`.
    private static let loopbackPieceBound = FetchPolicy.requestCostPieceLimit

    func testAbandonedReadToTheEndCostsAtMostAboutOneWindow() async throws {
        let fixture = try HTTPFixture(test: self, length: 40 * 1024 * 1024)
        let cache = try fixture.makeCache()
        var taken = 0
        for try await chunk in cache.read(fixture.url) {
            taken += chunk.count
            if taken >= 100_000 { break }
        }
        await cache.close()
        let sent = fixture.origin.bodyBytesSent
        let first = FetchPolicy().firstRequestSize
        XCTAssertLessThanOrEqual(
            sent, max(Int64(taken), first) + 2 * Self.loopbackPieceBound,
            "an abandoned 'to the end' read wastes at most about what was in flight")
        let ranges = fixture.origin.requests.compactMap(\.range)
        XCTAssertFalse(ranges.contains { $0.hasSuffix("-") }, "no open-ended origin request: \(ranges)")
        XCTAssertEqual(
            fixture.origin.requests.map(\.method).filter { $0 != "GET" }, [],
            "no HEAD: the first GET brings the content information")
        let foundEntry = await cache.entry(for: fixture.url)
        XCTAssertGreaterThanOrEqual(foundEntry?.cachedBytes ?? 0, Int64(taken))
    }

    func testReadAbandonedBeforeItsProbationOnAFastLinkKeepsLittleInFlight() async throws {
        let fixture = try HTTPFixture(test: self, length: 8 * 1024 * 1024)
        let cache = try fixture.makeCache()
        var taken = 0
        for try await chunk in cache.read(fixture.url) {
            taken += chunk.count
            if taken >= 900_000 { break }
        }
        await cache.close()
        let policy = FetchPolicy()
        XCTAssertLessThan(Int64(taken), policy.probation)
        let spans = fixture.origin.requests.compactMap(\.range).map(Self.span)
        XCTAssertEqual(spans.first, policy.firstRequestSize, "the first request, before anything is known of the host")
        // No growth with what was consumed yet: pieces are what arrives in a request's cost.
        XCTAssertTrue(spans.dropFirst().allSatisfy { $0 <= Self.loopbackPieceBound }, "only small pieces: \(spans)")
        XCTAssertLessThanOrEqual(
            fixture.origin.bodyBytesSent, Int64(taken) + 2 * Self.loopbackPieceBound,
            "what a young read abandoned costs beyond what it took")
    }

    func testLinearReadUsesGrowingBoundedPiecesRequestedAhead() async throws {
        let length: Int64 = 30 * 1024 * 1024
        let fixture = try HTTPFixture(test: self, length: length)
        let cache = try fixture.makeCache()
        var total: Int64 = 0
        for try await chunk in cache.read(fixture.url) { total += Int64(chunk.count) }
        XCTAssertEqual(total, length)
        let gets = fixture.origin.requests.filter { $0.method == "GET" }
        let spans = gets.compactMap { request -> Range<Int64>? in
            guard let text = request.range?.dropFirst("bytes=".count) else { return nil }
            let bounds = text.split(separator: "-").compactMap { Int64($0) }
            return bounds.count == 2 ? bounds[0]..<(bounds[1] + 1) : nil
        }
        XCTAssertEqual(spans.count, gets.count, "every origin request is a bounded range")
        let policy = FetchPolicy()
        XCTAssertTrue(spans.allSatisfy { $0.count <= policy.maximumPieceSize })
        XCTAssertEqual(spans.first?.count, Int(policy.firstRequestSize))
        XCTAssertEqual(ByteRangeSet(spans).ranges, [0..<length], "the pieces tile the file")
        XCTAssertEqual(spans.reduce(0) { $0 + Int64($1.count) }, length, "no byte is requested twice")
        // Pieces of what arrives in a request's cost on loopback for the first MiB, then 6 % of what was
        // consumed: about 60 more for 30 MiB, later pieces over a megabyte.
        XCTAssertLessThanOrEqual(spans.count, 135, "pieces grow with the read, so a long read needs few requests")
        XCTAssertGreaterThan(spans.map(\.count).max() ?? 0, 1024 * 1024, "late pieces are large")
        XCTAssertEqual(fixture.origin.bodyBytesSent, length)
    }

    func testABoundedReadNoLargerThanAFirstRequestIsAskedForInOne() async throws {
        let fixture = try HTTPFixture(test: self, length: 2 * 1024 * 1024)
        let cache = try fixture.makeCache()
        // The host is known after this: its round trip, and a delivery rate that makes pieces of tens of KiB.
        for try await _ in cache.read(fixture.url) {}
        let second = "/media/second.mp3"
        fixture.origin.serve(.generated(length: 4 * 1024 * 1024, seed: 9), at: second, contentType: "audio/mpeg")
        let url = fixture.origin.url(for: second)
        let wanted: Range<Int64> = 100_000..<(100_000 + FetchPolicy().firstRequestSize)
        _ = try await cache.contentInfo(for: url, firstRead: wanted)
        var data = Data()
        for try await chunk in cache.read(url, from: wanted.lowerBound, length: Int64(wanted.count)) {
            data.append(chunk)
        }
        XCTAssertEqual(data, TestContent.generatedBytes(seed: 9, range: wanted))
        let ranges = fixture.origin.requests.filter { $0.path == second }.compactMap(\.range)
        XCTAssertEqual(
            ranges, ["bytes=\(wanted.lowerBound)-\(wanted.upperBound - 1)"],
            "the range a client wants whole comes in the request that brings the content information")
    }

    /// The length of `bytes=A-B`.
    private static func span(_ range: String) -> Int64 {
        let bounds = range.dropFirst("bytes=".count).split(separator: "-").compactMap { Int64($0) }
        return bounds.count == 2 ? bounds[1] - bounds[0] + 1 : .max
    }

    func testNextPieceIsRequestedBeforeTheCurrentOneEnds() async throws {
        let rate = 1_000_000
        let fixture = try HTTPFixture(test: self, length: 1_500_000)
        let cache = try fixture.makeCache()
        _ = try await cache.contentInfo(for: fixture.url)
        fixture.origin.resetCounters()
        fixture.origin.behaviour.throttleBytesPerSecond = rate
        var total = 0
        for try await chunk in cache.read(fixture.url) { total += chunk.count }
        XCTAssertEqual(total, 1_500_000)
        let gets = fixture.origin.requests.filter { $0.method == "GET" }
        XCTAssertGreaterThanOrEqual(gets.count, 3)
        // The connection is kept busy: requests after the first arrive while an earlier one still has bytes
        // to send at the throttled rate. An engine that asked only once a piece had ended would have none
        // early. Early pieces are 16 ms apart at this rate, so a reader task waking late on a busy two-core
        // machine makes some late; at least half must be early.
        var busyUntil = gets[0].time.addingTimeInterval(Double(gets[0].bodyBytesSent) / Double(rate))
        var late: [String] = []
        for request in gets.dropFirst() {
            if request.time >= busyUntil { late.append(request.range ?? "") }
            busyUntil = max(busyUntil, request.time.addingTimeInterval(Double(request.bodyBytesSent) / Double(rate)))
        }
        print("[pieces] \(gets.count) requests, \(late.count) after every earlier piece had finished")
        XCTAssertLessThanOrEqual(
            late.count, (gets.count - 1) / 2, "requested after every earlier piece had finished: \(late)")
    }
}
