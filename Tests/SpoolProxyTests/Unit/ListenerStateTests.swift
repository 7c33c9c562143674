import XCTest

@testable import SpoolProxy

/// `ListenerState`'s decisions, input by input, with no socket and no waiting.
final class ListenerStateTests: XCTestCase {
    private typealias Action = ListenerState.Action

    func testALossRebindsTheSamePortAndSaysListeningAgain() {
        var state = ListenerState(listeningOn: 8080)
        XCTAssertEqual(
            state.lost(generation: 1, reason: "closed"),
            [.close(generation: 1), .announce(.lost(port: 8080, reason: "closed")), .bind(port: 8080)])
        XCTAssertEqual(
            state.bindFinished(.bound(port: 8080)), [.adopt(generation: 2), .announce(.listeningAgain(port: 8080))])
        XCTAssertEqual(state.phase, .listening(port: 8080, generation: 2))
        XCTAssertEqual(state.port, 8080)
    }

    func testATakenPortMovesOnceAndSaysFromWhereToWhere() {
        var state = ListenerState(listeningOn: 8080)
        _ = state.lost(generation: 1, reason: "refused")
        XCTAssertEqual(state.bindFinished(.addressInUse), [.bind(port: 0)])
        XCTAssertNil(state.port, "no URL names the taken port while another is bound")
        XCTAssertEqual(
            state.bindFinished(.bound(port: 9090)),
            [.adopt(generation: 2), .announce(.moved(from: 8080, to: 9090))])
        XCTAssertEqual(state.port, 9090)
    }

    func testNoFreePortOrAnotherFailureFailsAndARetryStartsOverOnTheSamePort() {
        let endings: [(ListenerState.BindOutcome, [ListenerState.BindOutcome], String)] = [
            (.failed("no memory"), [], "no memory"),
            (.addressInUse, [.addressInUse], "no free port"),
            (.addressInUse, [.failed("denied")], "denied"),
        ]
        for (first, then, reason) in endings {
            var state = ListenerState(listeningOn: 8080)
            _ = state.lost(generation: 1, reason: "closed")
            var actions = state.bindFinished(first)
            for outcome in then { actions = state.bindFinished(outcome) }
            XCTAssertEqual(actions, [.announce(.cannotListen(port: 8080, reason: reason))], reason)
            XCTAssertEqual(state.phase, .failed(port: 8080, generation: 1, reason: reason))
            XCTAssertNil(state.port, "url(for:) has no port to hand out")
            XCTAssertEqual(state.retry(), [.bind(port: 8080)], "the next call tries the same port first")
            XCTAssertEqual(
                state.bindFinished(.bound(port: 8080)),
                [.adopt(generation: 2), .announce(.listeningAgain(port: 8080))])
        }
    }

    func testReportsAboutAnOldSocketChangeNothing() {
        var state = ListenerState(listeningOn: 8080)
        _ = state.lost(generation: 1, reason: "closed")
        _ = state.bindFinished(.bound(port: 8080))
        XCTAssertEqual(state.lost(generation: 1, reason: "its accept loop ended late"), [])
        XCTAssertEqual(state.adoptionFailed(generation: 1, reason: "late"), [])
        XCTAssertEqual(state.retry(), [], "nothing to retry while listening")
        XCTAssertEqual(state.phase, .listening(port: 8080, generation: 2))
    }

    func testAStoppedListenerClosesItsSocketAndDiscardsALateOne() {
        var state = ListenerState(listeningOn: 8080)
        XCTAssertEqual(state.stop(), [.close(generation: 1)])
        XCTAssertEqual(state.stop(), [])
        XCTAssertEqual(state.lost(generation: 1, reason: "closed by stop"), [])
        XCTAssertEqual(state.bindFinished(.bound(port: 8080)), [.discardBound])
        XCTAssertEqual(state.retry(), [])
        XCTAssertNil(state.port)
    }

    func testAFailedAdoptionCountsAsALoss() {
        var state = ListenerState(listeningOn: 8080)
        XCTAssertEqual(
            state.adoptionFailed(generation: 1, reason: "refused"),
            [.close(generation: 1), .announce(.lost(port: 8080, reason: "refused")), .bind(port: 8080)])
    }
}
