import Foundation
import XCTest

@testable import Spool

/// The decisions of `PreloadSchedule` alone: which items of a feed start, in what order, what a swipe
/// cancels and what gets settled. Each row is a situation and the actions it must produce.
final class PreloadScheduleTests: XCTestCase {
    private func items(_ count: Int) -> [PreloadItem] {
        (0..<count).map { PreloadItem(url: URL(string: "https://cdn.example.com/v\($0).mp4")!, id: "v\($0)") }
    }

    private func schedule(
        ahead: Int = 2, behind: Int = 1, concurrent: Int = 2, waitsForCurrent: Bool = true
    ) -> PreloadSchedule {
        PreloadSchedule(
            configuration: PreloadConfiguration(
                itemsAhead: ahead, itemsBehind: behind, maximumConcurrentDownloads: concurrent,
                waitsForCurrentItem: waitsForCurrent))
    }

    func testTheWindowIsNearestFirstAheadBeforeBehind() {
        struct Row {
            var ahead: Int, behind: Int, current: Int, count: Int, waits: Bool
            var window: [String]
        }
        let rows = [
            Row(ahead: 2, behind: 1, current: 0, count: 10, waits: true, window: ["v0", "v1", "v2"]),
            Row(ahead: 2, behind: 1, current: 5, count: 10, waits: true, window: ["v5", "v6", "v7", "v4"]),
            Row(ahead: 3, behind: 1, current: 5, count: 10, waits: false, window: ["v5", "v6", "v7", "v8", "v4"]),
            Row(ahead: 2, behind: 2, current: 9, count: 10, waits: true, window: ["v9", "v8", "v7"]),
            Row(ahead: 0, behind: 0, current: 3, count: 10, waits: false, window: ["v3"]),
        ]
        for row in rows {
            var schedule = schedule(ahead: row.ahead, behind: row.behind, waitsForCurrent: row.waits)
            _ = schedule.setItems(items(row.count), current: row.current)
            XCTAssertEqual(schedule.window, row.window, "ahead \(row.ahead), behind \(row.behind), at \(row.current)")
        }
    }

    func testNothingButTheCurrentItemStartsUntilItHasLoaded() {
        var schedule = schedule()
        XCTAssertEqual(schedule.setItems(items(10), current: 0), [.start("v0")])
        XCTAssertEqual(schedule.finished("v0", loaded: true), [.start("v1"), .start("v2")])
        // Both slots taken: the next waits for one.
        XCTAssertEqual(schedule.finished("v1", loaded: true), [])
        XCTAssertEqual(schedule.finished("v2", loaded: true), [])
    }

    func testAFailedCurrentItemDoesNotHoldTheOthersBack() {
        var schedule = schedule()
        _ = schedule.setItems(items(10), current: 0)
        XCTAssertEqual(schedule.finished("v0", loaded: false), [.start("v1"), .start("v2")])
        XCTAssertEqual(schedule.status["v0"], .failed)
    }

    func testDownloadsAreBoundedAndStartInRankOrder() {
        var schedule = schedule(ahead: 4, concurrent: 1, waitsForCurrent: false)
        XCTAssertEqual(schedule.setItems(items(10), current: 3), [.start("v3")])
        XCTAssertEqual(schedule.finished("v3", loaded: true), [.start("v4")])
        XCTAssertEqual(schedule.finished("v4", loaded: true), [.start("v5")])
        XCTAssertEqual(schedule.finished("v5", loaded: true), [.start("v6")])
        XCTAssertEqual(schedule.finished("v6", loaded: true), [.start("v7")])
        XCTAssertEqual(schedule.finished("v7", loaded: true), [.start("v2")])
        XCTAssertEqual(schedule.finished("v2", loaded: true), [])
    }

    func testWithoutWaitingTheNextItemStartsBesideTheCurrentOne() {
        var schedule = schedule(waitsForCurrent: false)
        XCTAssertEqual(schedule.setItems(items(10), current: 0), [.start("v0"), .start("v1")])
        XCTAssertEqual(schedule.finished("v1", loaded: true), [.start("v2")])
    }

    func testTheItemTheUserLandsOnKeepsDownloading() {
        var schedule = schedule(waitsForCurrent: false)
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v0", loaded: true)
        // v1 and v2 run; the user swipes to v1: its download goes on (its player shares it), nothing is cancelled.
        XCTAssertEqual(schedule.status["v1"], .running)
        XCTAssertEqual(schedule.setCurrent(1), [])
        XCTAssertEqual(schedule.status["v1"], .running)
        XCTAssertEqual(schedule.finished("v1", loaded: true), [.start("v3")])
    }

    func testASwipeCancelsWhatLeftTheWindowAndSettlesWhatHadStopped() {
        var schedule = schedule()
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v0", loaded: true)
        _ = schedule.finished("v1", loaded: true)
        // v2 still runs. Three swipes: v0 and v1 are behind by more than one, v2 behind by one.
        let actions = schedule.setCurrent(3)
        XCTAssertEqual(actions, [.settle("v0"), .settle("v1"), .start("v3")])
        // v2 is within the window behind (one before v3) and keeps running.
        XCTAssertEqual(schedule.status["v2"], .running)
        // A jump far ahead cancels it.
        XCTAssertEqual(schedule.setCurrent(8), [.cancel("v2"), .cancel("v3"), .start("v8")])
        // Its end is no longer the schedule's business.
        XCTAssertEqual(schedule.finished("v2", loaded: true), [])
    }

    func testAnItemThatComesBackStartsAgain() {
        var schedule = schedule()
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v0", loaded: true)
        _ = schedule.finished("v1", loaded: true)
        _ = schedule.finished("v2", loaded: true)
        XCTAssertEqual(schedule.setCurrent(6), [.settle("v0"), .settle("v1"), .settle("v2"), .start("v6")])
        XCTAssertEqual(schedule.finished("v6", loaded: true), [.start("v7"), .start("v8")])
        XCTAssertEqual(schedule.finished("v7", loaded: true), [.start("v5")])
        XCTAssertEqual(schedule.finished("v8", loaded: true), [])
        XCTAssertEqual(
            schedule.setCurrent(0),
            [.cancel("v5"), .settle("v6"), .settle("v7"), .settle("v8"), .start("v0")])
        XCTAssertEqual(schedule.finished("v0", loaded: true), [.start("v1"), .start("v2")])
    }

    func testStopCancelsAndSettlesEverythingAndStartsNothing() {
        var schedule = schedule(waitsForCurrent: false)
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v1", loaded: true)
        XCTAssertEqual(schedule.status, ["v0": .running, "v1": .loaded, "v2": .running])
        XCTAssertEqual(schedule.stop(), [.cancel("v0"), .settle("v1"), .cancel("v2")])
        XCTAssertEqual(schedule.setCurrent(3), [])
    }

    func testANewListKeepsWhatIsStillInTheWindow() {
        var schedule = schedule(waitsForCurrent: false)
        let first = items(10)
        _ = schedule.setItems(first, current: 0)
        _ = schedule.finished("v1", loaded: true)
        // The feed grew and was reordered: v1 stays next, v2 moved out.
        let reordered = [first[0], first[1], first[5], first[2]] + first[6...]
        XCTAssertEqual(schedule.setItems(Array(reordered), current: 0), [.cancel("v2"), .start("v5")])
    }
}
