import Foundation
import XCTest

@testable import Spool
@testable import SpoolDownloads

/// Which downloads run, what a pause, a resume or a removal does, and what is written down: decisions, with no
/// download.
final class DownloadScheduleTests: XCTestCase {
    private func request(_ id: String) -> DownloadRequest {
        DownloadRequest(url: URL(string: "https://example.com/\(id).mp3")!, id: id)
    }

    private func phases(_ schedule: DownloadSchedule) -> [String] {
        schedule.entries.map { entry in
            switch entry.phase {
            case .queued: "\(entry.request.id):queued"
            case .running: "\(entry.request.id):running"
            case .paused: "\(entry.request.id):paused"
            case .completed: "\(entry.request.id):completed"
            case .failed: "\(entry.request.id):failed"
            }
        }
    }

    func testDownloadsStartInQueueOrderAFewAtATime() {
        var schedule = DownloadSchedule(entries: [], maximumConcurrent: 2)
        XCTAssertEqual(schedule.add(request("a")), [.persist, .start("a")])
        XCTAssertEqual(schedule.add(request("b")), [.persist, .start("b")])
        XCTAssertEqual(schedule.add(request("c")), [.persist], "two at a time")
        XCTAssertEqual(schedule.finished("a", .completed(bytes: 10)), [.persist, .start("c")])
        XCTAssertEqual(schedule.finished("b", .failed("origin: 500")), [.persist])
        XCTAssertEqual(phases(schedule), ["a:completed", "b:failed", "c:running"])
        XCTAssertEqual(schedule.finished("b", .completed(bytes: 1)), [], "a task that ended already ends nothing")
    }

    func testAPausedDownloadKeepsItsSlotUntilItsTaskHasEndedAndResumesAfter() {
        var schedule = DownloadSchedule(entries: [], maximumConcurrent: 1)
        _ = schedule.add(request("a"))
        _ = schedule.add(request("b"))
        XCTAssertEqual(schedule.pause("a"), [.cancel("a"), .persist], "b waits for a's task to end")
        XCTAssertEqual(schedule.resume("a"), [.persist], "a cannot run twice: its task has not ended")
        XCTAssertEqual(phases(schedule), ["a:queued", "b:queued"])
        XCTAssertEqual(schedule.finished("a", .cancelled), [.start("a")], "queued again, it runs again, first")
        XCTAssertEqual(schedule.pause("b"), [.persist])
        XCTAssertEqual(schedule.pause("b"), [], "paused already")
        XCTAssertEqual(schedule.finished("a", .completed(bytes: 5)), [.persist], "b is paused: nothing starts")
        XCTAssertEqual(schedule.resume("b"), [.persist, .start("b")])
        XCTAssertEqual(schedule.resume("a"), [], "a completed download is not queued again")
    }

    func testARemovedDownloadIsDiscardedOnlyOnceItsTaskHasEnded() {
        let a = request("a")
        var schedule = DownloadSchedule(entries: [], maximumConcurrent: 1)
        _ = schedule.add(a)
        _ = schedule.add(request("b"))
        XCTAssertEqual(schedule.remove("a"), [.cancel("a"), .persist])
        XCTAssertEqual(phases(schedule), ["b:queued"], "gone from the queue at once")
        XCTAssertEqual(schedule.finished("a", .cancelled), [.discard(a), .start("b")])
        XCTAssertEqual(schedule.remove("b"), [.cancel("b"), .persist])
        _ = schedule.add(request("c"))
        XCTAssertEqual(schedule.remove("c"), [.discard(request("c")), .persist], "c never ran: discarded at once")
        XCTAssertEqual(schedule.remove("c"), [], "no such download")
    }

    func testAddingAnIdAgainRestartsAFailedDownloadAndLeavesARunningOneAlone() {
        var schedule = DownloadSchedule(entries: [], maximumConcurrent: 1)
        _ = schedule.add(request("a"))
        var renamed = request("a")
        renamed.title = "Track 1"
        XCTAssertEqual(schedule.add(renamed), [], "running: left as it is")
        _ = schedule.finished("a", .failed("timed out"))
        XCTAssertEqual(schedule.add(renamed), [.persist, .start("a")])
        XCTAssertEqual(schedule.entries.first?.request.title, "Track 1")
        _ = schedule.finished("a", .completed(bytes: 3))
        XCTAssertEqual(schedule.add(renamed), [], "completed, and the same request: nothing changes")
    }

    func testWhatIsWrittenDownHasRunningDownloadsQueuedSoARelaunchStartsThemAgain() {
        var schedule = DownloadSchedule(entries: [], maximumConcurrent: 2)
        for id in ["a", "b", "c"] { _ = schedule.add(request(id)) }
        _ = schedule.pause("c")
        let written = schedule.persisted
        XCTAssertEqual(written.map(\.phase), [.queued, .queued, .paused])

        var relaunched = DownloadSchedule(entries: written, maximumConcurrent: 2)
        XCTAssertEqual(relaunched.start(), [.start("a"), .start("b")])
        XCTAssertEqual(relaunched.stop(), [.cancel("a"), .cancel("b")])
        XCTAssertEqual(relaunched.finished("a", .cancelled), [], "stopped: nothing starts")
        XCTAssertEqual(relaunched.persisted.map(\.phase), [.queued, .queued, .paused])
        XCTAssertEqual(
            DownloadSchedule(entries: [.init(request: request("x"), phase: .running)], maximumConcurrent: 1)
                .entries.map(\.phase), [.queued], "a download written as running (by an older writer) is queued")
    }
}
