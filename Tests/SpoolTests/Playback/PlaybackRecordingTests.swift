import Foundation
import XCTest

@testable import Spool

/// `PlaybackRecording` as a table: what requests serve and wait for becomes one report, finished once; and
/// `PlaybackSummary`'s percentiles and groups.
final class PlaybackRecordingTests: XCTestCase {
    private let clock = ManualClock()

    private func recording(fetchedAhead: FetchedAhead = FetchedAhead()) -> (
        PlaybackRecording, LockedBox<[PlaybackReport]>
    ) {
        let box = LockedBox([PlaybackReport]())
        let recording = PlaybackRecording(
            item: "https://example.com/a.mp4", path: .proxy, clock: clock, fetchedAhead: fetchedAhead,
            publish: { report in box.withLock { $0.append(report) } })
        return (recording, box)
    }

    func testTheStartIsToldByTheFirstBytesTakenAndReadAgainBytesStayTheOrigins() throws {
        let (recording, published) = recording()
        let probe = recording.requestStarted()
        clock.advance(by: 0.2)
        probe.served(key: "k", range: 0..<2, fresh: 2)
        probe.end()
        let read = recording.requestStarted()
        // The probe's two bytes again, from disk, then the rest from the origin.
        read.served(key: "k", range: 0..<100_000, fresh: 99_998)
        read.end()
        recording.finish()
        recording.finish()
        let reports = published.withLock { $0 }
        XCTAssertEqual(reports.count, 1, "finished once")
        let report = try XCTUnwrap(reports.first)
        XCTAssertEqual(report.start, .cold)
        XCTAssertEqual(report.timeToFirstByte ?? -1, 0.2, accuracy: 1e-9)
        XCTAssertEqual(report.bytesFromCache, 2)
        XCTAssertEqual(report.bytesFromOrigin, 100_000)
        XCTAssertEqual([report.requestsFromOrigin, report.requestsFromCache], [2, 0])
    }

    func testBytesAPreloadOrADownloadFetchedAreAttributedAndAMixedStartIsPartlyCached() throws {
        let ahead = FetchedAhead()
        ahead.fetched(key: "k", range: 0..<100_000, purpose: .preload)
        ahead.fetched(key: "k", range: 100_000..<150_000, purpose: .download)
        let (recording, published) = recording(fetchedAhead: ahead)
        let read = recording.requestStarted()
        read.served(key: "k", range: 0..<150_000, fresh: 0)
        read.served(key: "k", range: 150_000..<600_000, fresh: 450_000)
        read.end()
        recording.finish()
        let report = try XCTUnwrap(published.withLock { $0.first })
        XCTAssertEqual(report.start, .partlyCached)
        XCTAssertEqual(report.bytesFromPreload, 100_000)
        XCTAssertEqual(report.bytesFromDownload, 50_000)
        XCTAssertEqual(report.bytesFromCache, 150_000)
        XCTAssertEqual(report.requestsFromOrigin, 1)
    }

    func testOnlyNoticeableWaitsAfterTheFirstByteCountAndOverlappingOnesOnce() throws {
        let (recording, published) = recording()
        let first = recording.requestStarted()
        let start = clock.uptime
        // Before the first byte: the start, not a wait.
        first.waited(from: start, to: start + 1)
        clock.advance(by: 1)
        first.served(key: "k", range: 0..<10, fresh: 10)
        let now = clock.uptime
        first.waited(from: now, to: now + 0.1)  // a chunk's moment: not noticeable
        first.waited(from: now + 1, to: now + 2)
        let second = recording.requestStarted()
        second.waited(from: now + 1.5, to: now + 2.5)  // overlaps the first's: half a second more
        recording.finish()
        let report = try XCTUnwrap(published.withLock { $0.first })
        XCTAssertEqual(report.originWaits, 1)
        XCTAssertEqual(report.originWaitTime, 1.5, accuracy: 1e-9)
    }

    func testAnItemNeverPlayedHasNoReport() {
        let (recording, published) = recording()
        recording.finish()
        XCTAssertTrue(published.withLock { $0.isEmpty })
    }

    func testTheSummaryGivesNearestRankPercentilesPerKindOfStart() throws {
        let reports = (1...10).map { index -> PlaybackReport in
            let reportsStalls = index == 10
            return PlaybackReport(
                item: "i\(index)", path: .proxy, startedAt: Date(timeIntervalSince1970: 0),
                start: index <= 7 ? .fromCache : .cold, timeToFirstByte: Double(index) / 10,
                stalls: reportsStalls ? 2 : nil, rebufferingTime: reportsStalls ? 1.0 : nil,
                playingTime: reportsStalls ? 3.0 : nil)
        }
        let summary = PlaybackSummary(reports)
        XCTAssertEqual(summary.all.items, 10)
        XCTAssertEqual(summary.all.timeToFirstByte?.p50 ?? -1, 0.5, accuracy: 1e-9)
        XCTAssertEqual(summary.all.timeToFirstByte?.p90 ?? -1, 0.9, accuracy: 1e-9)
        XCTAssertEqual(summary.all.timeToFirstByte?.p99 ?? -1, 1.0, accuracy: 1e-9)
        XCTAssertEqual(summary.fromCache?.items, 7)
        XCTAssertEqual(summary.cold?.timeToFirstByte?.p50 ?? -1, 0.9, accuracy: 1e-9)
        XCTAssertNil(summary.partlyCached)
        XCTAssertEqual(summary.all.stalls, 2)
        XCTAssertNil(summary.fromCache?.stalls, "no player of those reported")
        XCTAssertEqual(summary.cold?.rebufferingRatio?.p50 ?? -1, 0.25, accuracy: 1e-9)
        XCTAssertNil(summary.all.timeToStart)
        let decoded = try JSONDecoder().decode(PlaybackSummary.self, from: JSONEncoder().encode(summary))
        XCTAssertEqual(decoded, summary)
    }
}
