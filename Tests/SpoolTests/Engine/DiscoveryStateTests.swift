import Foundation
import XCTest

@testable import Spool

/// What `EngineState` decides while a resource's content information is unknown: whether a discovery starts,
/// what its first request asks for, what follows a failed try, and what a waiting caller finds. Table-driven,
/// no I/O.
final class DiscoveryStateTests: XCTestCase {
    private let policy = FetchPolicy(
        firstRequestSize: 512 * 1024, retryLimit: 2, retryDelay: 0.1, maximumRetryDelay: 0.5, outageTolerance: 12)
    private let unknownLink = LinkEstimate()

    private func state(discovering wanted: EngineState.Discovery? = nil) -> EngineState {
        var state = EngineState(policy: policy, info: nil, stored: ByteRangeSet())
        if let wanted { XCTAssertTrue(state.beginDiscovery(wanted)) }
        return state
    }

    private func discovery(offset: Int64 = 0, end: Int64? = nil, extent: ReadExtent = .mayStopEarly)
        -> EngineState.Discovery
    {
        EngineState.Discovery(offset: offset, end: end, extent: extent, began: 100)
    }

    /// The action's kind and its range or delay, to compare.
    private enum Kind: Equatable {
        case send(Range<Int64>)
        case askOrigin
        case retry(after: Double)
        case fail
    }

    /// What a try does next, and what the state asked its driver for meanwhile: another try in its own task
    /// (`startDiscovery`) or the discovery's end.
    private func kind(_ next: EngineState.DiscoveryTry, _ actions: [EngineAction]) -> Kind {
        switch next {
        case .send(let range): return .send(range)
        case .askOrigin: return .askOrigin
        case .done:
            for case .startDiscovery(let delay) in actions { return .retry(after: delay) }
            XCTAssertTrue(actions.contains(.discoveryEnded), "a try that neither goes on nor retries ends it")
            return .fail
        }
    }

    func testWhatTheFirstRequestAsksFor() {
        let first: Int64 = 512 * 1024
        let known = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
        let ahead = policy.readAhead(afterConsuming: 0, link: known)
        var multiplexed = known
        multiplexed.multiplexed = true
        let rows:
            [(
                name: String, wanted: EngineState.Discovery, link: LinkEstimate, size: Int64, reads: Bool,
                expected: Kind
            )] = [
                ("an unknown host: a first request's size", discovery(), unknownLink, first, true, .send(0..<first)),
                (
                    "over HTTPS, the size the driver gives", discovery(), unknownLink, 2 * first, true,
                    .send(0..<2 * first)
                ),
                (
                    "a known link: a window and a piece", discovery(offset: 1000), known, first, true,
                    .send(1000..<1000 + ahead.window + ahead.piece)
                ),
                (
                    "a known multiplexed link: a window and the smallest piece, not a read's first (a probe's request)",
                    discovery(offset: 1000), multiplexed, first, true,
                    .send(1000..<1000 + policy.readAhead(afterConsuming: 0, link: multiplexed).window + 50_000)
                ),
                (
                    "a whole read: everything up to the limit", discovery(extent: .whole), unknownLink, first, true,
                    .send(0..<FetchPolicy.wholeRequestLimit)
                ),
                (
                    "a larger bounded read: a first request's size", discovery(offset: 10, end: 10 + 600_000),
                    unknownLink, first, true,
                    .send(10..<(10 + min(first, 600_000)))
                ),
                (
                    "a bounded read no larger than a first request: all of it", discovery(offset: 0, end: 65_536),
                    unknownLink, first, true, .send(0..<65_536)
                ),
                ("a negative offset starts at 0", discovery(offset: -5), unknownLink, first, true, .send(0..<first)),
                ("an origin that cannot read first is asked", discovery(), unknownLink, first, false, .askOrigin),
            ]
        for row in rows {
            var state = state(discovering: row.wanted)
            var next = EngineState.DiscoveryTry.done
            let actions = state.actions {
                next = $0.discoveryRequest(link: row.link, firstRequestSize: row.size, originReadsFirst: row.reads)
            }
            XCTAssertEqual(kind(next, actions), row.expected, row.name)
        }
    }

    func testWhatFollowsAFailedTry() {
        let rows: [(name: String, error: any Error, failuresBefore: Int, now: Double, expected: Kind)] = [
            ("a transient failure is retried", SpoolError.network("reset"), 0, 100.1, .retry(after: 0.1)),
            ("the second waits twice as long", SpoolError.network("reset"), 1, 100.3, .retry(after: 0.2)),
            ("past the retry limit it fails", SpoolError.network("reset"), 2, 101, .fail),
            ("a silent link is retried within the outage tolerance", SpoolError.timedOut(), 5, 110, .retry(after: 0.5)),
            ("and fails past it", SpoolError.timedOut(), 5, 113, .fail),
            (
                "past the end: the origin's own call", SpoolError.rangeNotSatisfiable(requested: 0, length: 0), 0, 100,
                .askOrigin
            ),
            (
                "an answer without a length: the origin's own call", SpoolError.invalidResponse("no length"), 0, 100,
                .askOrigin
            ),
            ("a refusal fails at once", SpoolError.httpStatus(403), 0, 100, .fail),
            ("a cancelled try fails at once", CancellationError(), 0, 100, .fail),
        ]
        for row in rows {
            var state = state(discovering: discovery())
            for _ in 0..<row.failuresBefore { _ = state.discoveryFailed(SpoolError.timedOut(), at: 100) }
            let round = state.discovery.round
            var next = EngineState.DiscoveryTry.done
            let actions = state.actions { next = $0.discoveryFailed(row.error, at: row.now) }
            XCTAssertEqual(kind(next, actions), row.expected, row.name)
            // A failure is what the round's callers find; a retry or the origin's call leaves them waiting.
            XCTAssertEqual(state.discoveryOutcome(since: round) != nil, row.expected == .fail, row.name)
            XCTAssertEqual(state.discovery.running == nil, row.expected == .fail, row.name)
        }
    }

    func testOneDiscoveryAtATimeAndEachCallerFindsItsRoundsOutcome() {
        var state = state()
        XCTAssertTrue(state.beginDiscovery(discovery()))
        XCTAssertFalse(state.beginDiscovery(discovery(offset: 5000)), "a second caller waits for the first's")
        let firstRound = state.discovery.round
        XCTAssertNil(state.discoveryOutcome(since: firstRound))
        _ = state.discoveryFailed(SpoolError.httpStatus(404), at: 100)
        guard case .failure? = state.discoveryOutcome(since: firstRound) else {
            return XCTFail("the round's callers find its failure")
        }
        // The next caller starts a new round, and does not take the old failure for its own.
        XCTAssertTrue(state.beginDiscovery(discovery()))
        XCTAssertNil(state.discoveryOutcome(since: state.discovery.round))
        // The origin's own call answers: everyone finds the information, and nothing starts again.
        XCTAssertTrue(state.originDescribed(ContentInfo(length: 1000, entityTag: "\"v1\"")))
        guard case .success(let info)? = state.discoveryOutcome(since: firstRound) else {
            return XCTFail("callers find the information")
        }
        XCTAssertEqual(info.length, 1000)
        XCTAssertFalse(state.beginDiscovery(discovery()), "known, nothing is discovered")
    }

    func testTheFirstResponseOpensItsRequestAndEndsTheDiscovery() {
        var state = state(discovering: discovery())
        let opened = state.openDiscovered(
            ContentInfo(length: 300_000, entityTag: "\"v1\""), servedFrom: 0, requested: 0..<524_288)
        XCTAssertNil(state.discovery.running)
        XCTAssertEqual(state.remaining(of: opened), 0..<300_000, "cut to the resource's end")
        XCTAssertNotNil(state.discoveryOutcome(since: state.discovery.round))
    }

    func testAFirstRequestSizedForAWholeReadEndsWithItsReadersOnceOneJoined() {
        let rows: [(name: String, extent: ReadExtent, requested: Range<Int64>, cancelledWhenLeft: Bool)] = [
            (
                "a player's first request runs on: the next request starts on its bytes", .mayStopEarly, 0..<524_288,
                false
            ),
            ("a whole read's (a pin, a preload piece) ends with its reader", .whole, 0..<10_000_000, true),
        ]
        for row in rows {
            var state = state(discovering: discovery(extent: row.extent))
            let opened = state.openDiscovered(
                ContentInfo(length: 10_000_000, entityTag: "\"v1\""), servedFrom: 0, requested: row.requested)
            // Nobody has joined yet: the read that asked comes next, and the request waits for it.
            XCTAssertTrue(state.fetches[opened]?.outlivesReaders ?? false, row.name)
            let reader = state.addReader(requestedEnd: nil, extent: row.extent)
            _ = state.driverStep(reader: reader, position: 0)
            XCTAssertEqual(state.fetches[opened]?.interested, [reader], "\(row.name): the read joined it")
            let cancelled = state.cancels { $0.removeReader(reader) }
            XCTAssertEqual(cancelled.contains(opened), row.cancelledWhenLeft, row.name)
            XCTAssertEqual(state.fetches[opened] == nil, row.cancelledWhenLeft, row.name)
        }
    }

    /// On a fast link a whole read's first request runs ahead of the read, which reads stored bytes behind it
    /// and never reaches its position: it joins all the same, and the request ends when it leaves.
    func testAWholeReadBehindItsFirstRequestJoinsItThoughItReadsStoredBytes() throws {
        let rows: [(name: String, extent: ReadExtent, cancelledWhenLeft: Bool)] = [
            ("a whole read (a prefetch) joins the request running ahead of it", .whole, true),
            ("a read that may stop early does not: the first request runs on", .mayStopEarly, false),
        ]
        for row in rows {
            var state = state(discovering: discovery(extent: .whole))
            let opened = state.openDiscovered(
                ContentInfo(length: 8_000_000, entityTag: "\"v1\""), servedFrom: 0,
                requested: 0..<FetchPolicy.wholeRequestLimit)
            _ = state.didStore(0..<2_000_000, fetch: opened)
            let reader = state.addReader(requestedEnd: nil, extent: row.extent, isPrefetch: true)
            guard case .read(let range, _) = state.driverStep(reader: reader, position: 262_144) else {
                return XCTFail("\(row.name): the stored bytes are read")
            }
            XCTAssertEqual(range.lowerBound, 262_144, row.name)
            let cancelled = state.cancels { $0.removeReader(reader) }
            XCTAssertEqual(cancelled.contains(opened), row.cancelledWhenLeft, row.name)
        }
    }
}
