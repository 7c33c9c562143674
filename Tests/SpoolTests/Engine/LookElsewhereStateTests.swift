import Foundation
import XCTest

@testable import Spool

/// When `EngineState` has a reader look at another process's record before it starts origin requests
/// (`Step.lookElsewhere`): only before a step that would start requests, once
/// per such step, and without changing anything until the look is done. Table-driven, no I/O.
final class LookElsewhereStateTests: XCTestCase {
    private let link = LinkEstimate(roundTrip: 0.04, bytesPerSecond: 5_000_000, spareConnections: 4)
    private let info = ContentInfo(length: 4_000_000, entityTag: "\"v1\"")

    private enum Kind: Equatable {
        case finished, read, fail, lookElsewhere
        case wait(starting: Bool)
    }

    /// Steps reader `reader` at `position` once (no look taken for it): the kind of step, and for a wait
    /// whether it started requests.
    private func step(_ state: inout EngineState, reader: Int, position: Int64) -> Kind {
        var step = EngineState.Step.finished
        let actions = state.actions { step = $0.step(reader: reader, position: position, link: link) }
        switch step {
        case .finished: return .finished
        case .read: return .read
        case .fail: return .fail
        case .lookElsewhere: return .lookElsewhere
        case .wait: return .wait(starting: actions.contains { if case .start = $0 { true } else { false } })
        }
    }

    func testWhenAReaderLooksElsewhereFirst() {
        struct Row {
            var name: String
            var stored: ByteRangeSet = ByteRangeSet()
            /// A request already runs over the first bytes (another reader's).
            var running = false
            var lookedBefore = false
            var position: Int64 = 0
            var expected: Kind
        }
        let rows = [
            Row(name: "a look first", expected: .lookElsewhere),
            Row(
                name: "looked: requests start", lookedBefore: true,
                expected: .wait(starting: true)),
            Row(
                name: "stored bytes: read without a look",
                stored: ByteRangeSet([0..<100_000]), expected: .read),
            Row(
                name: "a running request covers the window: joined without a look",
                running: true, expected: .wait(starting: false)),
            Row(name: "at the end: finished", position: 4_000_000, expected: .finished),
        ]
        for row in rows {
            var state = EngineState(
                policy: FetchPolicy(), info: info, stored: row.stored)
            if row.running {
                // A whole read's one request covers everything the next reader's window reaches.
                let other = state.addReader(requestedEnd: nil, extent: .whole)
                state.lookedElsewhere(reader: other)
                _ = state.step(reader: other, position: 0, link: link)
            }
            let reader = state.addReader(requestedEnd: nil)
            if row.lookedBefore { state.lookedElsewhere(reader: reader) }
            let before = Set(state.fetches.keys)
            XCTAssertEqual(step(&state, reader: reader, position: row.position), row.expected, row.name)
            if row.expected == .lookElsewhere {
                XCTAssertEqual(Set(state.fetches.keys), before, "\(row.name): nothing starts before the look")
            }
        }
    }

    func testALookAllowsOneStepAndWhatItAdoptedIsRead() {
        var state = EngineState(policy: FetchPolicy(), info: info, stored: ByteRangeSet())
        let reader = state.addReader(requestedEnd: nil)
        XCTAssertEqual(step(&state, reader: reader, position: 0), .lookElsewhere)
        // The other process stored the first 200 000 bytes: the look takes them in, and the step reads them.
        state.gained(ByteRangeSet([0..<200_000]))
        state.lookedElsewhere(reader: reader)
        XCTAssertEqual(step(&state, reader: reader, position: 0), .read)
        // The look was spent on that step: the next gap is looked for again before requests start.
        XCTAssertEqual(step(&state, reader: reader, position: 200_000), .lookElsewhere)
        state.lookedElsewhere(reader: reader)
        XCTAssertEqual(step(&state, reader: reader, position: 200_000), .wait(starting: true))
    }

    /// Whether a reader must ask its consumer first is about the requests its step would start, look or not.
    func testAskingTheConsumerLooksPastTheLook() {
        var state = EngineState(
            policy: FetchPolicy(), info: info, stored: ByteRangeSet([0..<100_000]))
        let reader = state.addReader(requestedEnd: nil)
        XCTAssertEqual(step(&state, reader: reader, position: 0), .read)
        state.markDelivered(reader: reader, versionNumber: state.versionNumber)
        XCTAssertTrue(state.mustAskConsumer(reader: reader, position: 100_000, link: link))
    }
}
