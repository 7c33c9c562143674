import Foundation
import XCTest

@testable import Spool

/// What the engine state asks its driver to do after each event (`EngineAction`), in order: the driver's one
/// `perform` does exactly this and nothing else. Table-driven, no I/O; the state's defaults are production's.
final class EngineActionTests: XCTestCase {
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
    private let info = ContentInfo(length: 4_000_000, entityTag: "\"v1\"")

    /// A state with a known resource and a reader at 0 waiting for the requests its first step started.
    private struct Waiting {
        var state: EngineState
        var reader: Int
        var fetches: [Int]
    }

    private func waiting(prefetch: Bool = false, stored: ByteRangeSet = ByteRangeSet()) -> Waiting {
        var state = EngineState(policy: FetchPolicy(), info: info, stored: stored)
        let reader = state.addReader(requestedEnd: nil, isPrefetch: prefetch)
        guard
            case .wait(let started) = state.driverStep(
                reader: reader, position: stored.ranges.first?.upperBound ?? 0, link: link)
        else {
            XCTFail("a reader of bytes not stored waits for requests")
            return Waiting(state: state, reader: reader, fetches: [])
        }
        _ = state.takeActions()
        return Waiting(state: state, reader: reader, fetches: started.map(\.id).sorted())
    }

    private func cancels(_ ids: [Int]) -> [EngineAction] { ids.sorted().map { .cancel(fetch: $0) } }

    /// An event given to a state, and the actions it must ask for.
    private struct Row {
        let name: String
        let given: Waiting
        let event: (inout EngineState, Waiting) -> Void
        let expected: (Waiting) -> [EngineAction]

        init(
            _ name: String, _ given: Waiting, _ event: @escaping (inout EngineState, Waiting) -> Void,
            _ expected: @escaping (Waiting) -> [EngineAction]
        ) {
            (self.name, self.given, self.event, self.expected) = (name, given, event, expected)
        }
    }

    func testEachEventAsksForItsActions() {
        let rows: [Row] = [
            Row(
                "a reader leaves: its requests (a read ahead's) are cancelled, the record may be due",
                waiting(prefetch: true), { $0.removeReader($1.reader, abandonAt: 10) },
                { self.cancels($0.fetches) + [.flushRecordSoon] }
            ),
            Row(
                "a player leaves: its requests are abandoned, not cancelled, and their holds look again", waiting(),
                { $0.removeReader($1.reader, abandonAt: 10) }, { _ in [.wakeHolds, .flushRecordSoon] }
            ),
            Row(
                "an abandoned request expires: cancelled", waiting(),
                { state, given in
                    state.removeReader(given.reader, abandonAt: 10)
                    _ = state.takeActions()
                    state.expireAbandoned(fetch: given.fetches[0])
                },
                { [.cancel(fetch: $0.fetches[0])] }
            ),
            Row(
                "the same version answers: nothing to do", waiting(),
                { $0.absorb(self.info, servedFrom: 0, requested: 0, fetch: $1.fetches[0]) }, { _ in [] }
            ),
            Row(
                "a new version answers: the others cancelled, the old bytes dropped, readers woken", waiting(),
                {
                    $0.absorb(
                        ContentInfo(length: 4_000_000, entityTag: "\"v2\""), servedFrom: 0, requested: 0,
                        fetch: $1.fetches[0])
                },
                { self.cancels(Array($0.fetches.dropFirst())) + [.newVersion, .wakeReaders] }
            ),
            Row(
                "a try fails and is retried", waiting(),
                {
                    $0.fetchFailed(
                        $1.fetches[0], error: SpoolError.network("reset"), progressed: false, cancelled: false, at: 1)
                },
                { [.retry(fetch: $0.fetches[0], after: FetchPolicy().retryWait(attempt: 1))] }
            ),
            Row(
                "a try fails for good: the request ends", waiting(),
                {
                    $0.fetchFailed(
                        $1.fetches[0], error: SpoolError.httpStatus(404), progressed: false, cancelled: false, at: 1)
                },
                { [.ended(fetch: $0.fetches[0]), .flushRecordSoon] }
            ),
            Row(
                "a cancelled try: the request ends", waiting(),
                {
                    $0.fetchFailed($1.fetches[0], error: CancellationError(), progressed: false, cancelled: true, at: 1)
                },
                { [.ended(fetch: $0.fetches[0]), .flushRecordSoon] }
            ),
            Row(
                "a 416 with another length: a new version, and the request that found it ends", waiting(),
                {
                    $0.fetchFailed(
                        $1.fetches[0], error: SpoolError.rangeNotSatisfiable(requested: 0, length: 10),
                        progressed: false, cancelled: false, at: 1)
                },
                {
                    self.cancels(Array($0.fetches.dropFirst()))
                        + [.newVersion, .wakeReaders, .ended(fetch: $0.fetches[0]), .flushRecordSoon]
                }
            ),
            Row(
                "a request has what it asked for", waiting(), { $0.finishFetch($1.fetches[0], failure: nil) },
                { [.ended(fetch: $0.fetches[0]), .flushRecordSoon] }
            ),
            Row(
                "the app removes the resource: every request cancelled", waiting(), { state, _ in state.dropVersion() },
                { self.cancels($0.fetches) + [.newVersion, .wakeReaders] }
            ),
            Row(
                "eviction gives blocks up: their slots cleared, readers woken",
                waiting(stored: ByteRangeSet([0..<1_048_576])), { state, _ in _ = state.shed(1, held: []) },
                { _ in [.clearDiscarded, .wakeReaders] }
            ),
            Row(
                "eviction finds nothing to give up", waiting(), { state, _ in _ = state.shed(1, held: []) }, { _ in [] }
            ),
        ]
        for row in rows {
            var state = row.given.state
            XCTAssertEqual(state.actions { row.event(&$0, row.given) }, row.expected(row.given), row.name)
        }
    }

    func testAReaderStepAsksForTheRequestsItStarts() {
        var state = EngineState(policy: FetchPolicy(), info: info, stored: ByteRangeSet([0..<100_000]))
        let reader = state.addReader(requestedEnd: nil)
        XCTAssertEqual(state.actions { _ = $0.step(reader: reader, position: 0, link: self.link) }, [], "a read")
        XCTAssertEqual(
            state.actions { _ = $0.step(reader: reader, position: 100_000, link: self.link) }, [],
            "the look elsewhere first starts nothing")
        state.lookedElsewhere(reader: reader)
        let before = Set(state.fetches.keys)
        let actions = state.actions { _ = $0.step(reader: reader, position: 100_000, link: self.link) }
        let started = Set(state.fetches.keys).subtracting(before).sorted()
        XCTAssertFalse(started.isEmpty)
        XCTAssertEqual(actions, started.map { .start(fetch: $0) } + [.wakeHolds], "each request it opened starts")
    }

    func testAPlayersReadElsewhereCancelsWhatPlayersAbandoned() {
        for prefetch in [false, true] {
            var given = waiting()
            given.state.removeReader(given.reader, abandonAt: 10)
            let seek = given.state.addReader(requestedEnd: nil, isPrefetch: prefetch)
            given.state.lookedElsewhere(reader: seek)
            _ = given.state.takeActions()
            let actions = given.state.actions { _ = $0.step(reader: seek, position: 1_000_000, link: self.link) }
            let cancelled = actions.compactMap { if case .cancel(let id) = $0 { id } else { nil } }
            XCTAssertEqual(cancelled, prefetch ? [] : given.fetches, "a player's read elsewhere: \(!prefetch)")
        }
    }

    func testTheDiscoveryAsksForItsTries() {
        var state = EngineState(policy: FetchPolicy(), info: nil, stored: ByteRangeSet())
        let wanted = EngineState.Discovery(offset: 0, end: nil, extent: .mayStopEarly, began: 100)
        XCTAssertEqual(state.actions { $0.beginDiscovery(wanted) }, [.startDiscovery(after: 0)])
        XCTAssertEqual(state.actions { $0.beginDiscovery(wanted) }, [], "one discovery at a time")
        XCTAssertEqual(
            state.actions { _ = $0.discoveryFailed(SpoolError.network("reset"), at: 100) },
            [.startDiscovery(after: FetchPolicy().retryWait(attempt: 1))], "a retry is a new try's task")
        XCTAssertEqual(
            state.actions { _ = $0.discoveryFailed(SpoolError.httpStatus(403), at: 100) }, [.discoveryEnded],
            "a final failure ends it")
        state.beginDiscovery(wanted)
        _ = state.takeActions()
        var opened = 0
        XCTAssertEqual(
            state.actions { opened = $0.openDiscovered(self.info, servedFrom: 0, requested: 0..<524_288) },
            [.discoveryBecame(fetch: opened), .wakeReaders], "its task goes on as the request its response opened")
        var other = EngineState(policy: FetchPolicy(), info: nil, stored: ByteRangeSet())
        other.beginDiscovery(wanted)
        _ = other.takeActions()
        XCTAssertEqual(other.actions { $0.originDescribed(self.info) }, [.discoveryEnded])
    }
}
