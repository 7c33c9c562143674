import Foundation
import XCTest

@testable import Spool

/// A try of an origin request is one task, which its `StallWatch` cancels when the origin goes silent or the
/// body is not needed any more, saying which.
final class StallWatchTests: XCTestCase {
    /// A task that waits until it is cancelled (or for a minute, so that a broken watch fails the test).
    private func waitingTask() -> Task<Void, Never> {
        Task { try? await Task.sleep(nanoseconds: 60_000_000_000) }
    }

    func testASilentTryIsCancelledAsAStall() async {
        let clock = ManualClock()
        let watch = StallWatch(timeout: 10, clock: clock)
        let task = waitingTask()
        watch.watch(task)
        watch.arm()
        clock.advance(by: 9.9)
        XCTAssertNil(watch.stop, "not silent for the timeout yet")
        clock.advance(by: 0.1)
        await task.value
        XCTAssertTrue(task.isCancelled)
        XCTAssertEqual(watch.stop, .stalled)
    }

    func testBytesArrivingPutTheStallOff() async {
        let clock = ManualClock()
        let watch = StallWatch(timeout: 10, clock: clock)
        let task = waitingTask()
        watch.watch(task)
        watch.arm()
        clock.advance(by: 9)
        watch.touch()
        // The timer comes due, finds 8 s of the silence left and waits again for them.
        clock.advance(by: 2)
        await clock.timers(atLeast: 1)
        XCTAssertNil(watch.stop)
        clock.advance(by: 8)
        await task.value
        XCTAssertEqual(watch.stop, .stalled)
    }

    func testABodyNotNeededCancelsTheTryAndKeepsItsReason() async {
        let clock = ManualClock()
        let watch = StallWatch(timeout: 10, clock: clock)
        let task = waitingTask()
        watch.watch(task)
        watch.arm()
        watch.bodyNotNeeded()
        await task.value
        XCTAssertEqual(watch.stop, .bodyNotNeeded)
        // The timer still pending finds the try ended: the reason stays.
        let later = waitingTask()
        let other = StallWatch(timeout: 10, clock: clock)
        other.watch(later)
        other.arm()
        clock.advance(by: 10)
        await later.value
        XCTAssertEqual(watch.stop, .bodyNotNeeded)
    }

    func testAStopBeforeTheTaskIsNamedCancelsItWhenNamed() async {
        let watch = StallWatch(timeout: 60)
        watch.bodyNotNeeded()
        let task = waitingTask()
        watch.watch(task)
        await task.value
        XCTAssertTrue(task.isCancelled)
    }

    func testATryThatEndsInTimeIsNotCancelled() async {
        let watch = StallWatch(timeout: 60)
        let task = Task {}
        watch.watch(task)
        watch.arm()
        await task.value
        watch.disarm()
        XCTAssertNil(watch.stop)
    }
}
