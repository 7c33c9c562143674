import Foundation
import XCTest

@testable import Spool

/// Byte budgets for preloading (`TransferSchedule+Budget`): a spent budget holds back its own preloads and
/// nothing else, and what it held is freed when the player reaches an item or the preloader stops. Decisions,
/// with no byte moving.
final class TransferBudgetTests: XCTestCase {
    private typealias Action = TransferSchedule.Action

    private func submit(
        _ schedule: inout TransferSchedule, _ key: String, _ purpose: TransferPurpose = .preload,
        claim: TransferBudgetClaim? = nil
    ) -> (subscriber: Int, job: Int, actions: [Action]) {
        let (subscriber, actions) = schedule.submit(
            key: key, host: "a", span: TransferSpan(), purpose: purpose, group: nil, budget: claim)
        return (subscriber, schedule.subscribers[subscriber]!.job, actions)
    }

    func testASpentBudgetHoldsBackItsOwnPreloadsOnlyUntilThePlayerReachesAnItem() {
        var schedule = TransferSchedule(limits: .init(total: 6, perHost: 6))
        // Preloader 1 holds its whole budget for item "b"; "c" has nothing yet.
        XCTAssertEqual(schedule.budget(owner: 1, limit: 100, ahead: ["b": 100, "c": 0], version: 1), [])
        XCTAssertEqual(schedule.budget(owner: 2, limit: 100, ahead: ["x": 0], version: 1), [])
        let held = submit(&schedule, "c", claim: TransferBudgetClaim(owner: 1, item: "c"))
        XCTAssertEqual(
            held.actions, [.waiting(subscriber: held.subscriber, [.byteBudget])],
            "the spent budget holds the preload back, and its subscriber hears why")
        let other = submit(&schedule, "x", claim: TransferBudgetClaim(owner: 2, item: "x"))
        XCTAssertEqual(other.actions, [.start(other.job)], "another preloader's budget is its own")
        let download = submit(&schedule, "track", .download)
        XCTAssertEqual(download.actions, [.start(download.job)], "a download counts against no budget")
        // The item the player is on is no longer ahead: its preload counts against nothing.
        let current = submit(&schedule, "a", claim: TransferBudgetClaim(owner: 1, item: "a"))
        XCTAssertEqual(current.actions, [.start(current.job)])
        XCTAssertNil(schedule.earliestWaitingPurpose, "a job held by its budget holds back nothing")
        // A late report, older than the one the schedule has, changes nothing.
        XCTAssertEqual(schedule.budget(owner: 1, limit: 100, ahead: ["c": 0], version: 0), [])
        // The player reaches "b": its bytes are the player's now, and "c" starts.
        XCTAssertEqual(schedule.budget(owner: 1, limit: 100, ahead: ["c": 0], version: 2), [.start(held.job)])
        // Told once: a job held again later says it again only to subscribers that have not heard it.
        XCTAssertEqual(schedule.budget(owner: 1, limit: 100, ahead: ["c": 0, "d": 150], version: 3), [])
        let later = submit(&schedule, "d", claim: TransferBudgetClaim(owner: 1, item: "d"))
        XCTAssertEqual(later.actions, [.waiting(subscriber: later.subscriber, [.byteBudget])])
        XCTAssertEqual(schedule.budget(owner: 1, limit: 100, ahead: ["c": 10, "d": 150], version: 4), [])
    }

    func testTheSharedBudgetCountsEveryPreloaderAndAStoppedOneHoldsNothing() {
        var schedule = TransferSchedule(limits: .init(total: 6, perHost: 6, preloadBytes: 150))
        // Neither preloader has a limit of its own; together they hold 160 of the shared 150.
        _ = schedule.budget(owner: 1, limit: nil, ahead: ["a": 100], version: 1)
        _ = schedule.budget(owner: 2, limit: nil, ahead: ["b": 60, "c": 0], version: 1)
        let held = submit(&schedule, "c", claim: TransferBudgetClaim(owner: 2, item: "c"))
        XCTAssertEqual(held.actions, [.waiting(subscriber: held.subscriber, [.byteBudget])])
        XCTAssertEqual(schedule.forgetBudget(owner: 1), [.start(held.job)], "the stopped preloader holds nothing")
        _ = schedule.budget(owner: 1, limit: nil, ahead: ["a": 100, "d": 0], version: 2)
        let again = submit(&schedule, "d", claim: TransferBudgetClaim(owner: 1, item: "d"))
        XCTAssertEqual(again.actions, [.waiting(subscriber: again.subscriber, [.byteBudget])])
        // An app's prefetch of the same bytes joins the held job and wants it now: it runs.
        let prefetch = submit(&schedule, "d", .prefetch)
        XCTAssertEqual(prefetch.job, again.job)
        XCTAssertEqual(prefetch.actions, [.start(again.job)])
        XCTAssertEqual(schedule.forgetBudget(owner: 1), [])
    }
}
