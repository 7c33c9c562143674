import Foundation
import XCTest

@testable import Spool

/// When playback needs the link: a start waiting, or reads that wait most of the time; not a stream that
/// keeps up.
final class PlaybackGateTests: XCTestCase {
    func testAStartNeedsTheLinkUntilAQuietPeriodAfterIt() async throws {
        let gate = PlaybackGate(quietPeriod: 0.2)
        XCTAssertFalse(gate.isPlaybackActive)
        let start = gate.playbackWaits(isStart: true)
        XCTAssertTrue(gate.isPlaybackActive)
        gate.playbackResumed(start)
        XCTAssertTrue(gate.isPlaybackActive, "within the quiet period")
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertFalse(gate.isPlaybackActive)
    }

    func testAStreamThatKeepsUpDoesNotButOneThatWaitsMostOfTheTimeDoes() async throws {
        let gate = PlaybackGate(quietPeriod: 0.2)
        // Short waits, a tenth of the time.
        for _ in 0..<5 {
            let wait = gate.playbackWaits(isStart: false)
            try await Task.sleep(for: .milliseconds(10))
            gate.playbackResumed(wait)
            try await Task.sleep(for: .milliseconds(90))
            XCTAssertFalse(gate.isPlaybackActive)
        }
        // Waiting nearly all the time.
        let long = gate.playbackWaits(isStart: false)
        try await Task.sleep(for: .milliseconds(700))
        XCTAssertTrue(gate.isPlaybackActive)
        gate.playbackResumed(long)
        XCTAssertTrue(gate.isPlaybackActive)
        try await Task.sleep(for: .milliseconds(1300))
        XCTAssertFalse(gate.isPlaybackActive, "a second after the long wait, and the quiet period")
    }
}
