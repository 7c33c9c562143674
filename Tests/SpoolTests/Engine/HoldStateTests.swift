import Foundation
import XCTest

@testable import Spool

/// What `EngineState.hold` decides for a request about to take its next chunk: go on, pause for playback
/// elsewhere (and until when), wait out an abandoned request's grace, or end it. Table-driven, no I/O.
final class HoldStateTests: XCTestCase {
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
    private let grace = 1.5

    /// Who waits for the request the first reader's step started.
    private enum Readers {
        /// A read ahead of playback.
        case prefetch
        /// A player's read.
        case playback
        /// A read ahead of playback, then a player's read joining the same request.
        case prefetchThenPlayback
        /// A player's read that left at `abandonedAt`.
        case abandoned
    }

    private struct Row {
        var name: String
        var readers: Readers
        var playbackNeed: Double
        /// When the hold began, and now.
        var heldSince: Double = 100
        var now: Double = 100
        var expected: EngineState.Hold
    }

    private let abandonedAt = 100.0

    /// A state with one request and `readers` on it, and that request's id.
    private func state(_ readers: Readers) -> (EngineState, Int) {
        var state = EngineState(
            policy: FetchPolicy(abandonedRequestGrace: grace),
            info: ContentInfo(length: 4_000_000, entityTag: "\"v1\""), stored: ByteRangeSet())
        let first = state.addReader(
            requestedEnd: 100_000, isPrefetch: readers == .prefetch || readers == .prefetchThenPlayback)
        guard case .wait(let started) = state.driverStep(reader: first, position: 0, link: link),
            let fetch = started.first
        else {
            XCTFail("a reader of bytes not stored starts a request")
            return (state, 0)
        }
        switch readers {
        case .prefetch, .playback: break
        case .prefetchThenPlayback:
            let player = state.addReader(requestedEnd: 100_000)
            _ = state.driverStep(reader: player, position: 0, link: link)
        case .abandoned:
            _ = state.cancels { $0.removeReader(first, abandonAt: abandonedAt) }
        }
        return (state, fetch.id)
    }

    func testWhatHoldsARequestBackAndUntilWhen() {
        let rows = [
            Row(name: "a prefetch, playback needs nothing", readers: .prefetch, playbackNeed: 0, expected: .none),
            Row(
                name: "a prefetch, playback needs the link for 2 s", readers: .prefetch, playbackNeed: 2,
                expected: .forPlayback(until: 102)),
            Row(
                name: "a prefetch near the longest pause stops there", readers: .prefetch, playbackNeed: 5,
                heldSince: 100, now: 158, expected: .forPlayback(until: 160)),
            Row(
                name: "a prefetch past the longest pause goes on", readers: .prefetch, playbackNeed: 5,
                heldSince: 100, now: 160, expected: .none),
            Row(name: "a player's request never pauses", readers: .playback, playbackNeed: 2, expected: .none),
            Row(
                name: "a player joined the prefetch: no pause", readers: .prefetchThenPlayback, playbackNeed: 2,
                expected: .none),
            Row(
                name: "abandoned, within its grace", readers: .abandoned, playbackNeed: 0, now: 101,
                expected: .abandoned(until: 101.5)),
            Row(
                name: "abandoned, its grace over", readers: .abandoned, playbackNeed: 0, now: 101.5,
                expected: .expired),
            Row(
                name: "abandoned while playback needs the link: the grace decides", readers: .abandoned,
                playbackNeed: 2, now: 100.5, expected: .abandoned(until: 101.5)),
            Row(
                name: "abandoned while a player waits and none reads this resource: it ends", readers: .abandoned,
                playbackNeed: .infinity, now: 100.5, expected: .expired),
        ]
        for row in rows {
            var (state, fetch) = state(row.readers)
            let hold = state.hold(fetch: fetch, heldSince: row.heldSince, playbackNeed: row.playbackNeed, at: row.now)
            XCTAssertEqual(hold, row.expected, row.name)
            XCTAssertEqual(state.remaining(of: fetch) == nil, row.expected == .expired, "\(row.name): ended or not")
        }
    }

    /// A grace longer than the longest pause is kept whole: before, the hold's end was cut to the longest
    /// pause, and a hold past it woke at once and looked again, round and round, until the grace ended.
    func testAnAbandonedRequestsHoldIsNotCutToTheLongestPause() {
        var state = EngineState(
            policy: FetchPolicy(abandonedRequestGrace: 3600),
            info: ContentInfo(length: 4_000_000, entityTag: "\"v1\""), stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: link),
            let fetch = started.first
        else { return XCTFail("a reader of bytes not stored starts a request") }
        _ = state.cancels { $0.removeReader(reader, abandonAt: 0) }
        let late = EngineState.maximumPause + 1
        XCTAssertEqual(state.hold(fetch: fetch.id, heldSince: 0, playbackNeed: 0, at: late), .abandoned(until: 3600))
        XCTAssertEqual(state.hold(fetch: fetch.id, heldSince: 0, playbackNeed: 0, at: 3600), .expired)
    }

    /// A read that joins an abandoned request ends its hold: the next look lets it go on.
    func testAReadJoiningEndsTheHold() {
        var (state, fetch) = state(.abandoned)
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 100, playbackNeed: 0, at: 100.5), .abandoned(until: 101.5))
        let again = state.addReader(requestedEnd: nil)
        _ = state.driverStep(reader: again, position: 0, link: link)
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 100, playbackNeed: 0, at: 100.6), .none)
    }
}
