// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// AVPlayer's request patterns, played through `SpoolAsset` against a real HTTP origin: every byte checked,
/// every request finished exactly once, and the origin's traffic measured against what was played.
final class PlaybackScenarioTests: XCTestCase {
    private func assertPassed(
        _ report: SimulationReport, _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertTrue(report.passed, "\(name): \(report.failures.prefix(5))", file: file, line: line)
        XCTAssertGreaterThan(report.checksPassed, 0, file: file, line: line)
    }

    private func ratio(_ sent: Int64, _ played: Int64) -> Double {
        played == 0 ? .infinity : Double(sent) / Double(played)
    }

    func testLinearPlayOfAnMP3CostsAtMostOnePercentMore() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 6_000_000
        let url = fixture.serve("/music/track.mp3", length: length, seed: 1, type: "audio/mpeg")
        let report = await fixture.play(
            url, length: length, seed: 1, script: .linearPlay(length: length), expectedType: "public.mp3")
        assertPassed(report, "linear")
        let sent = fixture.origin.bodyBytesSent
        print("linear: played \(report.bytesPlayed), origin \(sent), ttfb \(report.timeToFirstByte ?? -1)")
        XCTAssertGreaterThanOrEqual(report.bytesPlayed, length)
        XCTAssertLessThanOrEqual(ratio(sent, report.bytesPlayed), 1.01)
    }

    func testMoovAtTheEndCostsAtMostOnePercentMore() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 12_000_000
        let url = fixture.serve("/video/clip.mp4", length: length, seed: 2, type: "video/mp4")
        let report = await fixture.play(
            url, length: length, seed: 2, script: .moovAtEnd(length: length), expectedType: "public.mpeg-4")
        assertPassed(report, "moov at end")
        let sent = fixture.origin.bodyBytesSent
        print("moov-at-end: played \(report.bytesPlayed), origin \(sent)")
        XCTAssertLessThanOrEqual(ratio(sent, report.bytesPlayed), 1.01)
    }

    func testSeekStormCostsAtMostAQuarterMore() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 64 * 1024 * 1024
        let url = fixture.serve("/video/long.mp4", length: length, seed: 3, type: "video/mp4")
        let report = await fixture.play(
            url, length: length, seed: 3, script: .seekStorm(length: length, seeks: 50, seed: 3))
        assertPassed(report, "seek storm")
        let sent = fixture.origin.bodyBytesSent
        print("seek storm: played \(report.bytesPlayed), origin \(sent), ratio \(ratio(sent, report.bytesPlayed))")
        // Each of the 50 abandoned reads has what is in flight beyond its player committed: on loopback a
        // piece is what arrives in a request's cost, up to `FetchPolicy.requestCostPieceLimit`, since pieces
        // grow from the first response. Measured 1.02-1.18 in 20 runs (it was under 1.15 with 16 KiB pieces);
        // the bench's 50-seek session (row 5a) follows the median.
        XCTAssertLessThanOrEqual(ratio(sent, report.bytesPlayed), 1.25)
    }

    func testFullReplayWithTheOriginStoppedCostsNothing() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 5_000_000
        let url = fixture.serve("/music/offline.mp3", length: length, seed: 4, type: "audio/mpeg")
        let first = await fixture.play(
            url, length: length, seed: 4, script: .linearPlay(length: length), expectedType: "public.mp3")
        assertPassed(first, "first play")
        await fixture.cache.close()
        fixture.origin.stop()
        try fixture.reopenCache()
        let replay = await fixture.play(
            url, length: length, seed: 4, script: .offlineReplay(length: length), expectedType: "public.mp3")
        assertPassed(replay, "offline replay (content information included)")
        XCTAssertGreaterThanOrEqual(replay.bytesPlayed, length)
    }

    func testOriginDroppingMidPlayAndReturning() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 4_000_000
        let url = fixture.serve("/music/flaky.mp3", length: length, seed: 5, type: "audio/mpeg")
        // Every connection breaks after 300 KB: playback must still get every byte right.
        fixture.origin.behaviour.dropConnectionAfterBytes = 300_000
        let report = await fixture.play(
            url, length: length, seed: 5, script: .linearPlay(length: length), expectedType: "public.mp3")
        assertPassed(report, "dropping origin")
        fixture.origin.behaviour = TestOriginBehaviour()
        fixture.origin.resetCounters()
        let replay = await fixture.play(
            url, length: length, seed: 5, script: .linearPlay(length: length), expectedType: "public.mp3")
        assertPassed(replay, "replay")
        XCTAssertEqual(fixture.origin.bodyBytesSent, 0, "a replay costs nothing")
    }

    func testQueueOfFiveItemsWithPrebuffering() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 3_000_000
        var items: [QueueSimulation.Item] = []
        var assets: [SpoolAsset] = []
        for index in 0..<5 {
            let seed = UInt64(10 + index)
            let url = fixture.serve("/queue/\(index).mp3", length: length, seed: seed, type: "audio/mpeg")
            let asset = SpoolAsset(url: url, cache: fixture.cache)
            assets.append(asset)
            items.append(
                QueueSimulation.Item(
                    asset: asset, expectedBytes: { TestContent.generatedBytes(seed: seed, range: $0) },
                    resourceLength: length, expectedContentType: "public.mp3"))
        }
        let reports = await QueueSimulation(items: items).run(timeout: 120)
        XCTAssertEqual(reports.count, 5)
        var played: Int64 = 0
        for (index, report) in reports.enumerated() {
            assertPassed(report, "queue item \(index)")
            played += report.bytesPlayed
        }
        let sent = fixture.origin.bodyBytesSent
        print("queue: played \(played), origin \(sent)")
        XCTAssertLessThanOrEqual(
            sent, 5 * length + 5 * 64 * 1024, "pre-buffered bytes are shared with playback, not fetched twice")
        withExtendedLifetime(assets) {}
    }

    func testEveryRecordedTraceReplaysThroughTheAdapter() async throws {
        let traces = try AVPlayerTrace.recorded()
        XCTAssertFalse(traces.isEmpty)
        let fixture = try AdapterFixture(test: self)
        for (index, trace) in traces.enumerated() {
            let length = min(trace.resourceLength, 48 * 1024 * 1024)
            guard length == trace.resourceLength || trace.requests.allSatisfy({ $0.offset < length }) else { continue }
            let seed = UInt64(100 + index)
            let url = fixture.serve(
                "/traces/\(index).\(trace.container.hasPrefix("mp4") ? "mp4" : "mp3")", length: length, seed: seed,
                type: "application/octet-stream")
            let report = await fixture.play(url, length: length, seed: seed, script: trace.script)
            assertPassed(report, "trace \(trace.id)")
        }
    }
}
#endif
