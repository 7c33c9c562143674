import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// Origins that push back: a `429` or `503` with `Retry-After` holds every request to that host, a `429` sets
/// the rate the host allows, and reads of what is cached go on meanwhile.
final class HostPacingTests: XCTestCase {
    private let host = URL(string: "https://media.example/a.mp4")!
    private let other = URL(string: "https://other.example/a.mp4")!

    func testARefusalHoldsTheHostAndARateOnceSaidIsKept() throws {
        let pacing = HostPacing(clock: ManualClock())
        // Three requests in a second, the fourth refused: the host allows three.
        for time in [10.0, 10.2, 10.4, 10.6] { XCTAssertEqual(try pacing.reserveTurn(for: host, at: time), time) }
        pacing.refused(host, status: 429, retryAfter: "1", sentAt: 10.6, now: 10.62)
        XCTAssertEqual(pacing.limit(for: host), 3)
        // Held until the field's second is over, and then no fourth request in a second.
        XCTAssertEqual(try pacing.reserveTurn(for: host, at: 10.7), 11.62, accuracy: 0.001)
        XCTAssertEqual(try pacing.reserveTurn(for: host, at: 11.7), 11.7)
        XCTAssertEqual(try pacing.reserveTurn(for: host, at: 11.8), 11.8)
        XCTAssertEqual(
            try pacing.reserveTurn(for: host, at: 11.9), 11.62 + HostPacing.window + HostPacing.margin,
            accuracy: 0.001, "the window before it holds three: the next turn comes when the oldest leaves it")
        XCTAssertEqual(try pacing.reserveTurn(for: other, at: 10.7), 10.7, "another host is not held")
    }

    func testATurnToComeWaitsForTheClockAndCancellationEndsTheWait() async throws {
        let clock = ManualClock()
        let (pacing, host) = (HostPacing(clock: clock), host)
        pacing.refused(host, status: 429, retryAfter: "1", sentAt: clock.uptime, now: clock.uptime)
        let start = clock.uptime
        let waiting = Task { try await pacing.takeTurn(for: host) }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: 0.5)
        XCTAssertEqual(clock.sleeperCount, 1, "half its wait: still waiting")
        clock.advance(by: 0.5)
        let turn = try await waiting.value
        XCTAssertEqual(turn, start + 1, accuracy: 0.001, "its turn is the moment the host named")
        pacing.refused(host, status: 429, retryAfter: "1", sentAt: clock.uptime, now: clock.uptime)
        let cancelled = Task { try await pacing.takeTurn(for: host) }
        await clock.sleepers(atLeast: 1)
        cancelled.cancel()
        do {
            _ = try await cancelled.value
            XCTFail("a cancelled wait takes no turn")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    func testATurnTooFarAwayFailsWithTheHostsStatusAndSendsNothing() {
        let pacing = HostPacing(clock: ManualClock())
        pacing.refused(host, status: 503, retryAfter: "30", sentAt: 5, now: 5)
        XCTAssertThrowsError(try pacing.reserveTurn(for: host, at: 6)) { error in
            XCTAssertEqual(error as? SpoolError, .httpStatus(503, retryAfter: "29"))
        }
        XCTAssertEqual(try pacing.reserveTurn(for: host, at: 34), 35, "within 2 s of its end it waits")
        XCTAssertNil(pacing.limit(for: host), "a 503 says nothing of a rate")
        // A 503 without a field holds nothing: it may be a moment's.
        pacing.refused(other, status: 503, retryAfter: nil, sentAt: 5, now: 5)
        XCTAssertEqual(try pacing.reserveTurn(for: other, at: 5), 5)
    }

    func testAnHTTPDateIsReadAgainstTheClocksDate() throws {
        // The manual clock's date is years from the machine's: read against the machine's, the field would say
        // a moment long past, or one years away.
        let clock = ManualClock()
        let pacing = HostPacing(clock: clock)
        let field = HTTPDate.format(Int(clock.date.timeIntervalSince1970.rounded(.up)) + 10)
        pacing.refused(host, status: 503, retryAfter: field, sentAt: clock.uptime, now: clock.uptime)
        let turn = try pacing.reserveTurn(for: host, at: clock.uptime + 9)
        XCTAssertEqual(turn, clock.uptime + 10, accuracy: 1, "held until the field's date")
    }

    func testAnOriginThatAllowsNRequestsASecondIsNotExceededOnceItSaidSo() async throws {
        let fixture = try HTTPFixture(test: self, length: 600_000)
        fixture.origin.behaviour.requestsPerSecond = 4
        // Small pieces, so the read sends more requests than the origin allows in a second.
        let policy = FetchPolicy(
            initialPieceSize: 40_000, maximumPieceSize: 40_000, firstRequestSize: 40_000, sufficientBytesPerSecond: 1)
        let cache = try fixture.makeCache(policy: policy)
        let data = try await collect(cache.read(fixture.url))
        XCTAssertEqual(data, fixture.bytes(0..<600_000))
        await cache.close()
        let records = fixture.origin.requests
        let refused = records.filter { $0.responseStatus == 429 }
        guard let first = refused.first else { return XCTFail("the read sent more than 4 requests in a second") }
        // What was sent before the first refusal came back may be refused too; nothing sent after it.
        let late = refused.filter { $0.time.timeIntervalSince(first.time) > 0.25 }
        XCTAssertEqual(late.count, 0, "\(records.count) requests, \(refused.count) refused")
        print(
            "[pacing] \(records.count) requests, \(refused.count) refused, \(late.count) of them later than 0.25 s after the first"
        )
    }

    func testReadsOfWhatIsCachedGoOnWhileTheHostHoldsAndOthersFailAtOnce() async throws {
        let fixture = try HTTPFixture(test: self, length: 1_000_000)
        let cache = try fixture.makeCache()
        let head = try await collect(cache.read(fixture.url, from: 0, length: 100_000))
        XCTAssertEqual(head, fixture.bytes(0..<100_000))
        fixture.origin.behaviour.serverErrorStatus = 429
        fixture.origin.behaviour.serverErrorFields = ["Retry-After": "30"]
        // A read shorter than a piece sends one request: with two, the second may still be on its way to the origin
        // when the first's refusal fails the read, and the count below would race it.
        let (_, refused) = await collectUntilFailure(cache.read(fixture.url, from: 500_000, length: 10_000))
        XCTAssertEqual(refused as? SpoolError, .httpStatus(429, retryAfter: "30"))
        let asked = fixture.origin.requestCount
        // The host said 30 s: another read of bytes not stored fails at once, without asking it again.
        let (_, held) = await collectUntilFailure(cache.read(fixture.url, from: 700_000, length: 100_000))
        guard case .httpStatus(429, _, _)? = held as? SpoolError else {
            return XCTFail("got \(String(describing: held))")
        }
        XCTAssertEqual(fixture.origin.requestCount, asked, "nothing was sent to a host that said to wait")
        // What is cached plays on.
        let again = try await collect(cache.read(fixture.url, from: 0, length: 100_000))
        XCTAssertEqual(again, head)
        await cache.close()
    }
}
