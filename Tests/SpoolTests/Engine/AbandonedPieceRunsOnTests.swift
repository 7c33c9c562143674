import Foundation
import XCTest

@testable import Spool

/// Over HTTP/1.1 with bodies that pause while unread, a piece a player leaves near its end runs to it, so its
/// connection takes the player's next read (`FetchPolicy.abandonedRunsOnWithin`); others are abandoned as
/// before. Table-driven, no I/O.
final class AbandonedPieceRunsOnTests: XCTestCase {
    private let policy = PausingReadFixture.policy
    /// The bench's mobile link: 100 ms, 10 Mbit/s, TLS 1.3's two round trips to a new connection's head.
    private let mobile = LinkEstimate(
        roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 1, connectionSetup: 0.1,
        pausesWhileUnread: true)

    func testTheBoundIsAFirstRequestOrAProductAndTheHandshakes() {
        let first = policy.firstRequestSize
        XCTAssertEqual(policy.abandonedRunsOnWithin(mobile), first, "250 KB of product and handshakes: a first size")
        var fast = mobile
        fast.bytesPerSecond = 10_000_000
        XCTAssertEqual(policy.abandonedRunsOnWithin(fast), 2_000_000, "10 MB/s over 0.1 s and 0.1 s of handshakes")
        let rows: [(name: String, change: (inout LinkEstimate) -> Void)] = [
            ("over HTTP/2 a stream ends alone", { $0.multiplexed = true }),
            ("bodies that keep arriving come whole anyway", { $0.pausesWhileUnread = false }),
            ("nothing measured of the host yet", { $0.roundTrip = nil }),
        ]
        for row in rows {
            var link = mobile
            row.change(&link)
            XCTAssertEqual(policy.abandonedRunsOnWithin(link), 0, row.name)
        }
    }

    func testASeeksSecondPieceGoesAProductBeforeTheFirstEndsAndIsWhatItConsumed() {
        // Every connection busy: the window counts no new connection's handshakes (250 KB more here), which
        // would send the second piece with the first.
        var busy = mobile
        busy.spareConnections = 0
        var state = PausingReadFixture.state()
        let reader = state.addReader(requestedEnd: nil)
        guard let first = state.startedWaiting(reader: reader, position: 5_000_000, link: busy) else {
            return XCTFail("a reader of bytes not stored waits")
        }
        XCTAssertEqual(first.map(\.range), [5_000_000..<5_000_000 + policy.firstRequestSize], "one piece")
        XCTAssertTrue(state.didStore(5_000_000..<5_300_000, fetch: first[0].id))
        state.delivered(5_000_000..<5_300_000, reader: reader, at: Date())
        guard let none = state.startedWaiting(reader: reader, position: 5_300_000, link: busy) else {
            return XCTFail("the read waits for its first piece")
        }
        XCTAssertEqual(none.map(\.range), [], "224 KB before its end: more than a product (125 KB)")
        XCTAssertTrue(state.didStore(5_300_000..<5_400_000, fetch: first[0].id))
        state.delivered(5_300_000..<5_400_000, reader: reader, at: Date())
        // Within a product of the first piece's end, the next is asked for: what the read consumed, not another
        // first size (it would run on for half a MiB when the player leaves).
        guard let second = state.startedWaiting(reader: reader, position: 5_400_000, link: busy) else {
            return XCTFail("the read waits for its first piece")
        }
        XCTAssertEqual(second.map(\.range), [5_524_288..<5_924_288])
    }

    func testWhichLeftPiecesRunOn() {
        let rows: [(name: String, stored: Int64, runsOnWithin: Int64, runsOn: Bool)] = [
            ("near its end: runs on", 100_000, 512 * 1024, true),
            ("too far from its end: abandoned", 100_000, 300_000, false),
            ("nothing of it stored yet: abandoned", 0, 512 * 1024, false),
            ("no bound (HTTP/2, or no grace): abandoned", 100_000, 0, false),
        ]
        for row in rows {
            var state = PausingReadFixture.state()
            let reader = state.addReader(requestedEnd: nil)
            guard let fetch = state.startedWaiting(reader: reader, position: 0, link: mobile)?.first?.id
            else { return XCTFail("a request") }
            if row.stored > 0 { XCTAssertTrue(state.didStore(0..<row.stored, fetch: fetch)) }
            let cancelled = state.cancels { $0.removeReader(reader, abandonAt: 100, runsOnWithin: row.runsOnWithin) }
            XCTAssertEqual(cancelled, [], row.name)
            XCTAssertEqual(state.abandonedSince(fetch: fetch), row.runsOn ? nil : 100, row.name)
            // It takes its body while a player waits elsewhere, past its grace and
            XCTAssertEqual(
                state.hold(fetch: fetch, heldSince: 100, playbackNeed: .infinity, at: 102) == .none, row.runsOn,
                row.name)
            // a seek elsewhere leaves it going.
            _ = state.cancels { $0.dropAbandoned(forPlaybackReadAt: 10_000_000) }
            XCTAssertEqual(state.remaining(of: fetch) != nil, row.runsOn, row.name)
        }
    }
}
