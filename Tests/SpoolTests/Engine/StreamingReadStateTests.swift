import Foundation
import XCTest

@testable import Spool

/// What `EngineState` decides for an origin whose bodies pause while unread (`LinkEstimate.pausesWhileUnread`):
/// one request per read, read-ahead bounded by holding the body back, and how abandoned requests end.
/// Table-driven, no I/O.
final class StreamingReadStateTests: XCTestCase {
    private let policy = PausingReadFixture.policy
    private let length = PausingReadFixture.length
    private let pausing = LinkEstimate(
        roundTrip: 0.1, bytesPerSecond: 1_250_000, spareConnections: 1, pausesWhileUnread: true)

    private func state() -> EngineState { PausingReadFixture.state() }

    /// The requests a new reader's step at `position` starts, a reader that started at `start`.
    private func started(from start: Int64, at position: Int64, link: LinkEstimate) -> [Range<Int64>] {
        var state = state()
        let reader = state.addReader(requestedEnd: nil)
        if start < position {
            // It fetched from `start` (where its consumption counts from), and those bytes came.
            _ = state.driverStep(reader: reader, position: start, link: link)
            state.gained(ByteRangeSet([start..<position]))
        }
        guard let started = state.startedWaiting(reader: reader, position: position, link: link) else {
            XCTFail("a reader of bytes not stored waits")
            return []
        }
        return started.map(\.range)
    }

    func testARequestPerRead() {
        let first = policy.firstRequestSize
        XCTAssertEqual(started(from: 0, at: 0, link: pausing), [0..<first], "a read that may be a seek's")
        XCTAssertEqual(
            started(from: 0, at: 700_000, link: pausing), [700_000..<1_400_000], "within probation: what it consumed")
        XCTAssertEqual(started(from: 0, at: 1 << 20, link: pausing), [(1 << 20)..<length], "past probation: the rest")
        var pieces = pausing
        pieces.pausesWhileUnread = false
        let piecesPast = started(from: 0, at: 1 << 20, link: pieces)
        XCTAssertLessThan(piecesPast.first?.count ?? 0, 1 << 20, "bodies that keep arriving: pieces")
    }

    func testWithinProbationTheNextPieceGoesOutABandwidthDelayProductBeforeTheCurrentOnesEnd() {
        let first = policy.firstRequestSize
        // Over the mobile link a product is 125,000 bytes.
        XCTAssertEqual(started(from: 0, at: first - 130_000, link: pausing), [], "more than a product before")
        XCTAssertEqual(started(from: 0, at: first - 120_000, link: pausing).first?.lowerBound, first)
        // On loopback a product is a few KiB, and a new request costs about a millisecond. A reader that caught
        // up with its first request's bytes a third of the way in once started the next piece there (a window
        // of one and a half pieces), and a seek's read left within a few hundred KiB wasted it: 50 seeks cost
        // 1.79 origin bytes per byte played against 1.49 with this window.
        var loopback = pausing
        loopback.roundTrip = 0.000_2
        loopback.bytesPerSecond = 1_000_000_000
        XCTAssertEqual(started(from: 0, at: first / 3, link: loopback), [], "its first piece is far from its end")
        XCTAssertEqual(started(from: 0, at: first - 1_000, link: loopback).first?.lowerBound, first)
    }

    func testTheFirstRequestAsksForTheRestAndRunsOnOnlyOnceJoined() {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        state.beginDiscovery(EngineState.Discovery(offset: 0, end: nil, extent: .mayStopEarly, began: 0))
        var unknownHost = LinkEstimate()
        unknownHost.pausesWhileUnread = true
        let send = state.discoveryRequest(link: unknownHost, firstRequestSize: 1 << 20, originReadsFirst: true)
        XCTAssertEqual(send, .send(0..<FetchPolicy.wholeRequestLimit))
        let info = ContentInfo(length: length, entityTag: "\"v1\"")
        let fetch = state.openDiscovered(info, servedFrom: 0, requested: 0..<FetchPolicy.wholeRequestLimit)
        XCTAssertEqual(state.remaining(of: fetch), 0..<length)
        // Nobody joined: past what it would have asked for (1 MiB), it is abandoned as a player's request is.
        XCTAssertTrue(state.didStore(0..<500_000, fetch: fetch))
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 5, playbackNeed: 0, at: 5), .none, "before its first size")
        XCTAssertTrue(state.didStore(500_000..<(1 << 20), fetch: fetch))
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 6, playbackNeed: 0, at: 6), .abandoned(until: 7.5))
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 6, playbackNeed: 0, at: 7.5), .expired)

        // Joined, it runs on with its reader.
        var joined = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        joined.beginDiscovery(EngineState.Discovery(offset: 0, end: nil, extent: .mayStopEarly, began: 0))
        _ = joined.discoveryRequest(link: pausing, firstRequestSize: 1 << 20, originReadsFirst: true)
        let other = joined.openDiscovered(info, servedFrom: 0, requested: 0..<FetchPolicy.wholeRequestLimit)
        let reader = joined.addReader(requestedEnd: nil)
        guard case .wait(let none) = joined.driverStep(reader: reader, position: 0, link: pausing) else {
            return XCTFail("the reader waits for the first request")
        }
        XCTAssertTrue(none.isEmpty, "it joins the first request")
        XCTAssertTrue(joined.didStore(0..<(1 << 20), fetch: other))
        joined.delivered(0..<(1 << 20), reader: reader, at: Date())
        XCTAssertEqual(joined.hold(fetch: other, heldSince: 6, playbackNeed: 0, at: 6), .none)
        XCTAssertEqual(joined.remaining(of: other), (1 << 20)..<length)
    }

    func testARequestFarAheadOfItsReaderHoldsUntilTheReaderComesNear() {
        var state = state()
        let reader = state.addReader(requestedEnd: nil)
        _ = state.driverStep(reader: reader, position: 0, link: pausing)
        state.delivered(0..<(1 << 20), reader: reader, at: Date())
        state.gained(ByteRangeSet([0..<(1 << 20)]))
        guard case .wait(let started) = state.driverStep(reader: reader, position: 1 << 20, link: pausing),
            let fetch = started.first?.id
        else { return XCTFail("past probation, one request for the rest") }
        let limit: Int64 = 400_000
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 10, playbackNeed: 0, at: 10, readAheadLimit: limit), .none)
        // It stored the limit beyond the reader, which has read nothing of it.
        XCTAssertTrue(state.didStore((1 << 20)..<(1 << 20) + limit, fetch: fetch))
        XCTAssertEqual(
            state.hold(fetch: fetch, heldSince: 10, playbackNeed: 0, at: 11, readAheadLimit: limit),
            .aheadOfReaders(until: 10 + EngineState.longestHoldAhead))
        // Less than half of it read: still held, and the delivery wakes nothing.
        XCTAssertFalse(state.delivered((1 << 20)..<(1 << 20) + 100_000, reader: reader, at: Date()))
        XCTAssertEqual(
            state.hold(fetch: fetch, heldSince: 10, playbackNeed: 0, at: 12, readAheadLimit: limit),
            .aheadOfReaders(until: 30))
        // Within half of it: the delivery wakes the hold, which lets it go on.
        XCTAssertTrue(state.delivered((1 << 20)..<(1 << 20) + 200_000, reader: reader, at: Date()))
        XCTAssertEqual(state.hold(fetch: fetch, heldSince: 10, playbackNeed: 0, at: 13, readAheadLimit: limit), .none)
    }

    func testAHoldAheadEndsTheRequestAfterItsLongestWait() {
        var state = state()
        let reader = state.addReader(requestedEnd: nil)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: pausing),
            let fetch = started.first?.id
        else { return XCTFail("a request") }
        XCTAssertTrue(state.didStore(0..<300_000, fetch: fetch))
        let limit: Int64 = 256 * 1024
        XCTAssertEqual(
            state.hold(fetch: fetch, heldSince: 0, playbackNeed: 0, at: 0, readAheadLimit: limit),
            .aheadOfReaders(until: EngineState.longestHoldAhead))
        XCTAssertEqual(
            state.hold(
                fetch: fetch, heldSince: 0, playbackNeed: 0, at: EngineState.longestHoldAhead,
                readAheadLimit: limit), .expired)
        XCTAssertNil(state.remaining(of: fetch), "it ended; a read that goes on sends another")
    }

    func testAWholeReadIsNeverHeld() {
        var state = state()
        let reader = state.addReader(requestedEnd: nil, extent: .whole)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: pausing),
            let fetch = started.first
        else { return XCTFail("a request") }
        XCTAssertEqual(fetch.range, 0..<length)
        XCTAssertTrue(state.didStore(0..<5_000_000, fetch: fetch.id))
        XCTAssertEqual(state.hold(fetch: fetch.id, heldSince: 0, playbackNeed: 0, at: 0, readAheadLimit: 1), .none)
    }

    func testHowAbandonedRequestsEnd() {
        let rows: [(name: String, playbackNeed: Double, playerHere: Bool, expected: EngineState.Hold)] = [
            ("nobody waits: its grace", 0, false, .abandoned(until: 101.5)),
            ("a player waits elsewhere: at once", .infinity, false, .expired),
            ("a player waits, one reads here: its grace", .infinity, true, .abandoned(until: 101.5)),
            ("playback needs the link a while: its grace", 2, false, .abandoned(until: 101.5)),
        ]
        for row in rows {
            var state = state()
            let reader = state.addReader(requestedEnd: nil)
            guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: pausing),
                let fetch = started.first?.id
            else { return XCTFail("a request") }
            if row.playerHere { _ = state.addReader(requestedEnd: nil) }
            XCTAssertEqual(
                state.actions { $0.removeReader(reader, abandonAt: 100) }.contains(.wakeHolds), true, row.name)
            let hold = state.hold(fetch: fetch, heldSince: 100, playbackNeed: row.playbackNeed, at: 100)
            XCTAssertEqual(hold, row.expected, row.name)
        }
    }

    func testALongRequestLeftOverHTTP2EndsAtOnce() {
        var state = state()
        let reader = state.addReader(requestedEnd: nil)
        _ = state.driverStep(reader: reader, position: 0, link: pausing)
        state.gained(ByteRangeSet([0..<(1 << 20)]))
        guard case .wait(let started) = state.driverStep(reader: reader, position: 1 << 20, link: pausing),
            let long = started.first?.id
        else { return XCTFail("past probation, one request for the rest") }
        _ = state.actions { $0.removeReader(reader, abandonAt: 100) }
        XCTAssertEqual(state.hold(fetch: long, heldSince: 100, playbackNeed: 0, at: 100), .abandoned(until: 101.5))
        XCTAssertEqual(
            state.hold(fetch: long, heldSince: 100, playbackNeed: 0, at: 100, multiplexed: true), .expired,
            "an unread stream takes its window")
    }

    func testAShortRequestLeftOverHTTP2EndsAtOnceToo() {
        var state = state()
        let reader = state.addReader(requestedEnd: nil)
        guard case .wait(let started) = state.driverStep(reader: reader, position: 0, link: pausing),
            let first = started.first
        else { return XCTFail("a first request") }
        XCTAssertEqual(first.range.count, Int(policy.firstRequestSize), "a seek's first piece")
        XCTAssertTrue(state.didStore(0..<100_000, fetch: first.id))
        _ = state.actions { $0.removeReader(reader, abandonAt: 100) }
        XCTAssertEqual(
            state.hold(fetch: first.id, heldSince: 100, playbackNeed: 0, at: 100), .abandoned(until: 101.5),
            "over HTTP/1.1 a player's next read may take it over")
        XCTAssertEqual(
            state.hold(fetch: first.id, heldSince: 100, playbackNeed: 0, at: 100, multiplexed: true), .expired,
            "over HTTP/2 what it has left would cross the link ahead of the next request")
    }

    func testClosingEndsAFirstRequestNobodyJoined() {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        state.beginDiscovery(EngineState.Discovery(offset: 0, end: nil, extent: .mayStopEarly, began: 0))
        _ = state.discoveryRequest(link: pausing, firstRequestSize: 1 << 20, originReadsFirst: true)
        let fetch = state.openDiscovered(
            ContentInfo(length: length, entityTag: "\"v1\""), servedFrom: 0,
            requested: 0..<FetchPolicy.wholeRequestLimit)
        XCTAssertEqual(state.cancels { $0.expireAllAbandoned() }, [fetch])
    }

    func testTheReadAheadBoundFollowsTheLink() {
        XCTAssertEqual(policy.readAheadOfReaders(LinkEstimate()), FetchPolicy.minimumReadAhead)
        let broadband = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000)
        XCTAssertEqual(policy.readAheadOfReaders(broadband), FetchPolicy.minimumReadAhead, "200 KB: the least")
        let fast = LinkEstimate(roundTrip: 0.1, bytesPerSecond: 10_000_000)
        XCTAssertEqual(policy.readAheadOfReaders(fast), 1_000_000)
    }
}
