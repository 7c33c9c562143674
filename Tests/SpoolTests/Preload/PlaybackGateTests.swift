import Foundation
import XCTest

@testable import Spool

/// When playback needs the link: a start waiting, or reads that wait most of the time; not a stream that
/// keeps up. Time is the test's (`ManualClock`): nothing here sleeps or reads the wall clock.
final class PlaybackGateTests: XCTestCase {
    func testAStartNeedsTheLinkUntilAQuietPeriodAfterIt() {
        let clock = ManualClock()
        let gate = PlaybackGate(quietPeriod: 0.2, clock: clock)
        XCTAssertFalse(gate.isPlaybackActive)
        let start = gate.playbackWaits(isStart: true)
        clock.advance(by: 0.1)
        XCTAssertTrue(gate.isPlaybackActive, "while the start waits")
        gate.playbackResumed(start)
        clock.advance(by: 0.19)
        XCTAssertTrue(gate.isPlaybackActive, "within the quiet period")
        clock.advance(by: 0.02)
        XCTAssertFalse(gate.isPlaybackActive)
    }

    func testAStreamThatKeepsUpDoesNotButOneThatWaitsMostOfTheTimeDoes() {
        let clock = ManualClock()
        let gate = PlaybackGate(quietPeriod: 0.2, clock: clock)
        // Short waits, a tenth of the time.
        for _ in 0..<5 {
            let wait = gate.playbackWaits(isStart: false)
            clock.advance(by: 0.01)
            gate.playbackResumed(wait)
            clock.advance(by: 0.09)
            XCTAssertFalse(gate.isPlaybackActive)
        }
        // Waiting most of the last second.
        let long = gate.playbackWaits(isStart: false)
        clock.advance(by: 0.4)
        XCTAssertFalse(gate.isPlaybackActive, "waited 0.45 s of the last second: not more than half")
        clock.advance(by: 0.06)
        XCTAssertTrue(gate.isPlaybackActive, "waited 0.51 s of the last second")
        gate.playbackResumed(long)
        clock.advance(by: 0.1)
        XCTAssertTrue(gate.isPlaybackActive, "within the quiet period")
        clock.advance(by: 1.2)
        XCTAssertFalse(gate.isPlaybackActive, "a second after the long wait, and the quiet period")
    }

    func testAWaitForPlaybackEndsWhenTheNeedLapsesAndNotBefore() async {
        let clock = ManualClock()
        let gate = PlaybackGate(quietPeriod: 0.2, clock: clock)
        let start = gate.playbackWaits(isStart: true)
        XCTAssertEqual(gate.need().remaining, .infinity, "while a start waits, only its end can end the need")
        let waiter = Task { await gate.waitForPlayback() }
        // (A short start: a long one would fill the last second, and the need would last a while longer.)
        clock.advance(by: 0.1)
        XCTAssertEqual(clock.sleeperCount, 0, "no timer while only an event can end the need")
        gate.playbackResumed(start)
        // Woken by the wait's end, it sleeps until a quiet period after it.
        await clock.sleepers(atLeast: 1)
        clock.advance(by: 0.1)
        XCTAssertEqual(clock.sleeperCount, 1, "still asleep within the quiet period")
        clock.advance(by: 0.1)
        await waiter.value
        XCTAssertFalse(gate.isPlaybackActive)
    }

    func testAfterLongWaitsTheNeedEndsWhenTheyFillHalfTheLastSecondThenAQuietPeriod() async {
        let clock = ManualClock()
        let gate = PlaybackGate(quietPeriod: 0.2, clock: clock)
        let long = gate.playbackWaits(isStart: false)
        clock.advance(by: 0.8)
        XCTAssertEqual(gate.need().remaining, .infinity, "while a wait fills the last second, only its end ends it")
        gate.playbackResumed(long)
        // The 0.8 s wait fills half of the last second 0.5 s after its end; the quiet period follows.
        XCTAssertEqual(gate.need().remaining, 0.7, accuracy: 1e-9)
        let waiter = Task { await gate.waitForPlayback() }
        await clock.sleepers(atLeast: 1)
        clock.advance(by: 0.69)
        XCTAssertEqual(clock.sleeperCount, 1, "asleep until the need ends, and no check before")
        clock.advance(by: 0.02)
        await waiter.value
        XCTAssertFalse(gate.isPlaybackActive)
    }

    func testACancelledWaitForPlaybackEndsAtOnce() async {
        let clock = ManualClock()
        let gate = PlaybackGate(quietPeriod: 0.2, clock: clock)
        gate.playbackResumed(gate.playbackWaits(isStart: true))
        let waiter = Task { await gate.waitForPlayback() }
        await clock.sleepers(atLeast: 1)
        waiter.cancel()
        await waiter.value
        XCTAssertEqual(clock.sleeperCount, 0, "its sleep ended with it")
        XCTAssertTrue(gate.isPlaybackActive)
    }
}
