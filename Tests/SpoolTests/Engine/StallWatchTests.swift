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
        let watch = StallWatch(timeout: 0.05)
        let task = waitingTask()
        watch.watch(task)
        watch.arm()
        await task.value
        XCTAssertTrue(task.isCancelled)
        XCTAssertEqual(watch.stop, .stalled)
    }

    func testABodyNotNeededCancelsTheTryAndKeepsItsReason() async {
        let watch = StallWatch(timeout: 0.05)
        let task = waitingTask()
        watch.watch(task)
        watch.arm()
        watch.bodyNotNeeded()
        await task.value
        XCTAssertEqual(watch.stop, .bodyNotNeeded)
        // The timer still pending finds the try ended: the reason stays.
        let later = waitingTask()
        let other = StallWatch(timeout: 0.05)
        other.watch(later)
        other.arm()
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
