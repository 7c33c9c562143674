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

    func testTheWindowIsRankedByDistanceAheadFirst() {
        struct Row {
            var ahead: Int, behind: Int, current: Int, count: Int, waits: Bool
            var window: [String]
        }
        let rows = [
            Row(ahead: 2, behind: 1, current: 0, count: 10, waits: true, window: ["v0", "v1", "v2"]),
            Row(ahead: 2, behind: 1, current: 5, count: 10, waits: true, window: ["v5", "v6", "v4", "v7"]),
            Row(ahead: 3, behind: 1, current: 5, count: 10, waits: false, window: ["v6", "v4", "v7", "v8"]),
            Row(ahead: 2, behind: 2, current: 9, count: 10, waits: true, window: ["v9", "v8", "v7"]),
            Row(ahead: 0, behind: 0, current: 3, count: 10, waits: false, window: []),
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
        XCTAssertEqual(schedule.setItems(items(10), current: 3), [.start("v4")])
        XCTAssertEqual(schedule.finished("v4", loaded: true), [.start("v2")])
        XCTAssertEqual(schedule.finished("v2", loaded: true), [.start("v5")])
        XCTAssertEqual(schedule.finished("v5", loaded: true), [.start("v6")])
        XCTAssertEqual(schedule.finished("v6", loaded: true), [.start("v7")])
        XCTAssertEqual(schedule.finished("v7", loaded: true), [])
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
        var schedule = schedule(waitsForCurrent: false)
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v1", loaded: true)
        _ = schedule.finished("v2", loaded: true)
        XCTAssertEqual(schedule.setCurrent(6), [.settle("v1"), .settle("v2"), .start("v7"), .start("v5")])
        XCTAssertEqual(schedule.finished("v7", loaded: true), [.start("v8")])
        XCTAssertEqual(schedule.finished("v5", loaded: true), [])
        XCTAssertEqual(
            schedule.setCurrent(0), [.settle("v5"), .settle("v7"), .cancel("v8"), .start("v1"), .start("v2")])
    }

    func testStopCancelsAndSettlesEverythingAndStartsNothing() {
        var schedule = schedule(waitsForCurrent: false)
        _ = schedule.setItems(items(10), current: 0)
        _ = schedule.finished("v1", loaded: true)
        XCTAssertEqual(schedule.status, ["v1": .loaded, "v2": .running])
        XCTAssertEqual(schedule.stop(), [.settle("v1"), .cancel("v2")])
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
