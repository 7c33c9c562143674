import Foundation
import XCTest

@testable import Spool

/// When fetches ahead of playback run: purpose order, limits, coalescing, cancellation when the last
/// subscriber leaves, the playback gate and the device's conditions. Decisions, with no byte moving.
final class TransferScheduleTests: XCTestCase {
    private typealias Action = TransferSchedule.Action

    /// Submits `key`'s `span` and returns the subscriber, appending the actions to `log`.
    @discardableResult
    private func submit(
        _ schedule: inout TransferSchedule, _ key: String, host: String = "a", span: TransferSpan = TransferSpan(),
        _ purpose: TransferPurpose, group: Int? = nil, log: inout [Action]
    ) -> Int {
        let (subscriber, actions) = schedule.submit(key: key, host: host, span: span, purpose: purpose, group: group)
        log += actions
        return subscriber
    }

    private func job(_ schedule: TransferSchedule, _ key: String) -> Int? {
        schedule.jobs.values.first { $0.key == key }?.id
    }

    private func started(_ actions: [Action], _ schedule: TransferSchedule, keys: [Int: String]) -> [String] {
        actions.compactMap { if case .start(let id) = $0 { keys[id] } else { nil } }
    }

    func testJobsStartByPurposeThenInTheOrderAskedWithinTheLimits() {
        var schedule = TransferSchedule(limits: .init(total: 1, perHost: 1))
        var log: [Action] = []
        // The link is busy with playback: everything queues.
        log += schedule.playback(needsLink: true)
        submit(&schedule, "download", .download, log: &log)
        submit(&schedule, "preload", .preload, log: &log)
        submit(&schedule, "prefetch", .prefetch, log: &log)
        submit(&schedule, "read-ahead", .readAhead, log: &log)
        submit(&schedule, "preload 2", .preload, log: &log)
        XCTAssertEqual(log, [.watchPlayback], "nothing starts while playback needs the link; the gate is watched once")
        var order: [String] = []
        func note(_ actions: [Action]) {
            for action in actions {
                guard case .start(let id) = action else { continue }
                order.append(schedule.jobs[id]!.key)
            }
        }
        note(schedule.playback(needsLink: false))
        note(schedule.playbackWatchEnded())
        for _ in 0..<5 {
            let running = schedule.jobs.values.filter { $0.phase == .running }
            XCTAssertEqual(running.count, 1, "one at a time")
            guard let id = running.first?.id else { break }
            note(schedule.ended(id))
        }
        XCTAssertEqual(order, ["read-ahead", "prefetch", "preload", "preload 2", "download"])
        XCTAssertTrue(schedule.jobs.isEmpty)
    }

    func testLaterPurposesTakeOnlyAShareOfTheLimitsSoEarlierOnesFindAPlace() throws {
        var schedule = TransferSchedule(limits: .init(total: 6, perHost: 4))
        var log: [Action] = []
        for index in 0..<4 { submit(&schedule, "track \(index)", .download, log: &log) }
        for index in 0..<4 { submit(&schedule, "item \(index)", .preload, log: &log) }
        func running() -> [String] {
            schedule.jobs.values.filter { $0.phase == .running }.map(\.key).sorted()
        }
        // Of the host's four places, downloads take two, and preloads one of the three they share with them.
        XCTAssertEqual(running(), ["item 0", "track 0", "track 1"])
        log = []
        submit(&schedule, "segment", .readAhead, log: &log)
        let segment = try XCTUnwrap(job(schedule, "segment"))
        XCTAssertEqual(log, [.start(segment)], "the read-ahead starts at once, and nothing running stops")
        // Another host has places of its own, within the total.
        log = []
        submit(&schedule, "elsewhere", host: "b", .prefetch, log: &log)
        XCTAssertEqual(log, [.start(try XCTUnwrap(job(schedule, "elsewhere")))])
        // A download ends: its place goes to what waits first by purpose.
        let track = try XCTUnwrap(job(schedule, "track 0"))
        let next = schedule.ended(track).compactMap {
            if case .start(let id) = $0 { schedule.jobs[id]?.key } else { nil }
        }
        XCTAssertEqual(next, ["item 1"])
        XCTAssertEqual(running(), ["elsewhere", "item 0", "item 1", "segment", "track 1"])
    }

    func testASpanWithinAJobJoinsItAndTheJobStopsWhenItsLastSubscriberLeaves() throws {
        var schedule = TransferSchedule()
        var log: [Action] = []
        let preload = submit(&schedule, "video", span: TransferSpan(start: 0, end: 1_000_000), .preload, log: &log)
        let id = try XCTUnwrap(job(schedule, "video"))
        let prefetch = submit(&schedule, "video", span: TransferSpan(start: 0, end: 500_000), .prefetch, log: &log)
        XCTAssertEqual(schedule.jobs.count, 1, "the smaller span joined the running job")
        XCTAssertEqual(schedule.jobs[id]?.purpose, .prefetch, "a job takes its most urgent subscriber's purpose")
        submit(&schedule, "video", span: TransferSpan(start: 500_000), .prefetch, log: &log)
        XCTAssertEqual(schedule.jobs.count, 2, "a span past the job's end is a job of its own")
        log = []
        log += schedule.leave(prefetch)
        XCTAssertEqual(schedule.jobs[id]?.purpose, .preload)
        XCTAssertFalse(log.contains(.cancel(id)), "someone still wants it")
        log += schedule.leave(preload)
        XCTAssertTrue(log.contains(.cancel(id)), "its last subscriber left")
        XCTAssertEqual(schedule.jobs[id]?.phase, .cancelling)
        XCTAssertEqual(schedule.ended(id), [], "nobody to tell")
        XCTAssertNil(schedule.jobs[id])
    }

    func testAQueuedJobWhoseSubscribersLeftIsGoneAtOnceAndTheOthersHearTheEnd() throws {
        var schedule = TransferSchedule(limits: .init(total: 1, perHost: 1))
        var log: [Action] = []
        let first = submit(&schedule, "one", .download, log: &log)
        let second = submit(&schedule, "two", .download, log: &log)
        let joined = submit(&schedule, "one", .preload, log: &log)
        _ = schedule.leave(second)
        XCTAssertNil(job(schedule, "two"), "a queued job nobody wants is dropped")
        let id = try XCTUnwrap(job(schedule, "one"))
        XCTAssertEqual(schedule.ended(id), [.finish(id, subscribers: [first, joined].sorted())])
        XCTAssertTrue(schedule.subscribers.isEmpty)
    }

    func testConditionsHoldJobsBackSuspendThemAndTellTheirSubscribers() throws {
        var schedule = TransferSchedule()
        var log: [Action] = []
        let download = submit(&schedule, "track", .download, group: 1, log: &log)
        XCTAssertEqual(log, [.watchConditions(1)], "nothing starts before the group's conditions are known")
        log = schedule.conditions(group: 1, blockers: [])
        let id = try XCTUnwrap(job(schedule, "track"))
        XCTAssertEqual(log, [.start(id)])
        // Low Power Mode: the download stops and its subscriber hears why.
        log = schedule.conditions(group: 1, blockers: [.lowPowerMode])
        XCTAssertEqual(log, [.suspend(id), .waiting(subscriber: download, [.lowPowerMode])])
        // The same again (a periodic look) says nothing new.
        XCTAssertEqual(schedule.conditions(group: 1, blockers: [.lowPowerMode]), [])
        XCTAssertEqual(schedule.ended(id), [.waiting(subscriber: download, [.lowPowerMode])])
        XCTAssertEqual(schedule.jobs[id]?.phase, .queued)
        // A look at the track's first bytes has no conditions: it does not join the held-back download (that
        // would run all of it), and runs on its own.
        log = []
        let look = submit(&schedule, "track", span: TransferSpan(start: 0, end: 16), .prefetch, log: &log)
        let lookJob = try XCTUnwrap(schedule.subscribers[look]?.job)
        XCTAssertNotEqual(lookJob, id)
        XCTAssertEqual(log, [.start(lookJob)])
        _ = schedule.ended(lookJob)
        XCTAssertEqual(schedule.conditions(group: 1, blockers: []), [.start(id)])
        // Joined while it runs, by a subscriber without conditions: it runs on for it when the download's stop.
        let prefetch = submit(&schedule, "track", .prefetch, log: &log)
        XCTAssertEqual(schedule.subscribers[prefetch]?.job, id)
        XCTAssertEqual(schedule.conditions(group: 1, blockers: [.lowPowerMode]), [])
        XCTAssertEqual(schedule.leave(prefetch), [.suspend(id)], "it ran for the prefetch only")
        // The group's last subscriber leaves: the job and the watcher stop.
        XCTAssertEqual(schedule.leave(download), [.cancel(id), .stopWatchingConditions(1)])
    }

    func testPlaybackHoldsBackNewJobsOnlyAndTheGateIsWatchedOnce() throws {
        var schedule = TransferSchedule()
        var log: [Action] = []
        let first = submit(&schedule, "running", .preload, log: &log)
        let running = try XCTUnwrap(job(schedule, "running"))
        XCTAssertEqual(schedule.playback(needsLink: true), [], "a running job is the engine's to pause")
        log = []
        submit(&schedule, "next", .preload, log: &log)
        submit(&schedule, "after", .preload, log: &log)
        XCTAssertEqual(log, [.watchPlayback])
        XCTAssertEqual(
            schedule.ended(running), [.finish(running, subscribers: [first])], "the others still wait for playback")
        XCTAssertEqual(schedule.playback(needsLink: false).count, 2, "both start once playback lets go")
    }

    func testAHostWhoseOriginSaysComeBackLaterIsLeftAloneUntilThen() throws {
        var schedule = TransferSchedule()
        var log: [Action] = []
        let waiting = submit(&schedule, "track", .download, log: &log)
        let id = try XCTUnwrap(job(schedule, "track"))
        // A 429 with `Retry-After: 30`: back to the queue, the host held.
        XCTAssertEqual(schedule.backOff(id, for: 30), [.releaseHost("a", hold: 1, after: 30)])
        XCTAssertEqual(schedule.jobs[id]?.phase, .queued)
        log = []
        submit(&schedule, "other", .readAhead, log: &log)
        XCTAssertEqual(log, [], "nothing starts against the held host, whatever its purpose")
        submit(&schedule, "elsewhere", host: "b", .download, log: &log)
        XCTAssertEqual(log, [.start(try XCTUnwrap(job(schedule, "elsewhere")))], "other hosts go on")
        XCTAssertEqual(schedule.releaseHost("a", hold: 0), [], "an older hold's end changes nothing")
        let other = try XCTUnwrap(job(schedule, "other"))
        XCTAssertEqual(schedule.releaseHost("a", hold: 1), [.start(other), .start(id)])
        // Told again and again: its subscriber hears the failure in the end.
        for hold in 2...TransferSchedule.maximumBackOffs {
            XCTAssertEqual(schedule.backOff(id, for: 1).first, .releaseHost("a", hold: hold, after: 1))
            _ = schedule.releaseHost("a", hold: hold)
        }
        XCTAssertEqual(schedule.backOff(id, for: 1).first, .finish(id, subscribers: [waiting]))
    }

    func testADownloadWhoseOriginIsOutOfReachWaitsLongerEachTimeAndTriesAgainWhenTheNetworkIsBack() throws {
        var schedule = TransferSchedule()
        var log: [Action] = []
        let download = submit(&schedule, "track", .download, group: 1, log: &log)
        _ = schedule.conditions(group: 1, blockers: [])
        let id = try XCTUnwrap(job(schedule, "track"))
        XCTAssertEqual(
            schedule.unreachable(id), [.retryLater(id, after: 2), .waiting(subscriber: download, [.originUnreachable])])
        log = []
        let preload = submit(&schedule, "item", .preload, log: &log)
        let item = try XCTUnwrap(job(schedule, "item"))
        XCTAssertEqual(log, [.start(item)], "other jobs go on: only the download waits")
        XCTAssertEqual(
            schedule.unreachable(item), [.finish(item, subscribers: [preload])], "a preload is a guess: it fails")
        XCTAssertEqual(schedule.retry(id), [.start(id)])
        XCTAssertEqual(schedule.unreachable(id).first, .retryLater(id, after: 4), "the wait doubles")
        // The device lost its network and has it back: the download tries again at once.
        _ = schedule.conditions(group: 1, blockers: [.noNetwork])
        XCTAssertEqual(schedule.conditions(group: 1, blockers: []), [.start(id)])
        for _ in 0..<12 { _ = schedule.unreachable(id) + schedule.retry(id) }
        XCTAssertEqual(schedule.unreachable(id).first, .retryLater(id, after: 300), "at most five minutes")
    }
}
