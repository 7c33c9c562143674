import Foundation
import XCTest

@testable import SpoolAVFoundation

/// The tally of an item's metric events (iOS 18's `AVMetrics`): stalls timed from their event to the next sign
/// that playback goes on, a stall in progress counted until now, and the session's summary taking over.
final class PlayerMetricsTallyTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000)

    func testStallsAreTimedUntilPlaybackGoesOnAndTheSummaryTakesOver() {
        var tally = PlayerMetricsTally()
        tally.started(after: 0.4)
        tally.started(after: 9)
        XCTAssertEqual(tally.startup, 0.4, "the first likely-to-keep-up is the start")
        tally.stalled(at: start)
        tally.stalled(at: start.addingTimeInterval(0.5))
        XCTAssertEqual(tally.stalls, 1, "one stall until playback goes on")
        XCTAssertEqual(tally.rebuffering(at: start.addingTimeInterval(0.75)), 0.75, "a stall in progress counts")
        tally.resumed(at: start.addingTimeInterval(1.25))
        tally.resumed(at: start.addingTimeInterval(3))
        XCTAssertEqual(tally.rebuffering(at: start.addingTimeInterval(10)), 1.25, "only the stall's time")
        tally.stalled(at: start.addingTimeInterval(20))
        XCTAssertEqual(tally.stalls, 2)
        tally.summarized(stalls: 2, recovering: 1.5, startup: 0.5)
        XCTAssertEqual(tally.rebuffering(at: start.addingTimeInterval(30)), 1.5, "AVFoundation's own figure")
        XCTAssertEqual(tally.startup, 0.5)
        tally.stalled(at: start.addingTimeInterval(40))
        XCTAssertEqual(tally.stalls, 2, "nothing after the summary")
    }
}
