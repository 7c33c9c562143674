import Foundation
import Spool
import SpoolTesting
import XCTest

/// Open-ended reads never become one open-ended origin download.
final class PieceTests: XCTestCase {
    func testAbandonedReadToTheEndCostsAtMostAboutOnePiece() async throws {
        let fixture = try HTTPFixture(test: self, length: 40 * 1024 * 1024)
        let cache = try fixture.makeCache()
        var taken = 0
        for try await chunk in cache.read(fixture.url) {
            taken += chunk.count
            if taken >= 100_000 { break }
        }
        await cache.close()
        let sent = fixture.origin.bodyBytesSent
        let piece = FetchPolicy().initialPieceSize
        XCTAssertLessThanOrEqual(sent, piece + 64 * 1024, "an abandoned 'to the end' read wastes at most about one piece")
        let ranges = fixture.origin.requests.compactMap(\.range)
        XCTAssertFalse(ranges.contains { $0.hasSuffix("-") }, "no open-ended origin request: \(ranges)")
        XCTAssertGreaterThanOrEqual(cache.entry(for: fixture.url)?.cachedBytes ?? 0, Int64(taken))
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
        XCTAssertEqual(spans.first?.count, Int(policy.initialPieceSize))
        XCTAssertEqual(ByteRangeSet(spans).ranges, [0..<length], "the pieces tile the file")
        XCTAssertEqual(spans.reduce(0) { $0 + Int64($1.count) }, length, "no byte is requested twice")
        XCTAssertLessThanOrEqual(spans.count, 10, "pieces grow, so a long read needs few requests")
        XCTAssertEqual(fixture.origin.bodyBytesSent, length)
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
        for (previous, next) in zip(gets, gets.dropFirst()) {
            // At the throttled rate the previous piece needs size/rate seconds; the next request must
            // arrive well before that, so the connection never idles between pieces.
            let previousDuration = Double(previous.bodyBytesSent) / Double(rate)
            let gap = next.time.timeIntervalSince(previous.time)
            XCTAssertLessThan(gap, previousDuration * 0.8, "\(next.range ?? "") came \(gap) s after \(previous.range ?? "")")
        }
    }
}
