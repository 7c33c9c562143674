// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// A `SpoolAsset`'s playback report: the cache's side (time to first byte, bytes by source, waits on the
/// origin) and the player's (startup, stalls, time watched from its item's access log; time stalled from its
/// metric events), told apart by how much of the start was cached.
final class PlaybackReportTests: XCTestCase {
    private static let length: Int64 = 1_500_000
    /// AVPlayer's start: the content information with two bytes, then a read to the end.
    private static let script = PlayerScript(
        requests: [ScriptedRequest(info: true, offset: 0, length: 2), ScriptedRequest(offset: 0, length: nil)],
        toEndReadLimit: nil)
    /// 300 kB/s of media, ready after 64 kB, playing on after 128 kB more.
    private static let playback = SimulatedPlayback(bytesPerSecond: 300_000, startupBytes: 64_000, resumeBytes: 128_000)

    /// Plays `url` through a new asset whose item reports the playback; runs `whilePlaying` once the player is
    /// ready; returns the simulator's report and the asset's playback report.
    private func play(
        _ url: URL, seed: UInt64, fixture: AdapterFixture, reports: AsyncStream<PlaybackReport>,
        whilePlaying: (@Sendable (AVPlayerItem) async throws -> Void)? = nil
    ) async throws -> (SimulationReport, PlaybackReport) {
        let asset = SpoolAsset(url: url, cache: fixture.cache)
        let item = await MainActor.run { AVPlayerItem(asset: asset) }
        asset.reportPlayback(of: item)
        let simulator = PlayerSimulator(
            asset: asset, expectedBytes: { TestContent.generatedBytes(seed: seed, range: $0) },
            resourceLength: Self.length, item: item, playback: Self.playback)
        let running = Self.start(simulator)
        if let whilePlaying {
            try await fixture.until("the player is ready") { item.accessLog() != nil }
            try await whilePlaying(item)
        }
        let simulation = await running.value
        asset.finishPlaybackReport()
        return (simulation, try await reports.nextReport())
    }

    private static func start(_ simulator: PlayerSimulator) -> Task<SimulationReport, Never> {
        Task { await simulator.run(script, timeout: 60) }
    }

    func testTheReportTellsColdPartlyCachedAndCachedStartsApartWithThePlayersStartup() async throws {
        let fixture = try AdapterFixture(test: self)
        let reports = fixture.cache.playback.reports()
        let urls = (0..<3).map {
            fixture.serve("/v\($0).mp4", length: Self.length, seed: UInt64(60 + $0), type: "video/mp4")
        }

        let (coldRun, cold) = try await play(urls[0], seed: 60, fixture: fixture, reports: reports)
        XCTAssertTrue(coldRun.passed, "\(coldRun.failures.prefix(3))")
        XCTAssertEqual(cold.path, .avPlayer)
        XCTAssertEqual(cold.item, urls[0].absoluteString)
        XCTAssertEqual(cold.start, .cold, "\(cold)")
        XCTAssertEqual(cold.bytesFromOrigin, Self.length)
        XCTAssertEqual(cold.bytesFromCache, 2, "the player's second read starts where its first two bytes are stored")
        XCTAssertNotNil(cold.timeToFirstByte)
        let startup = try XCTUnwrap(cold.timeToStart, "the access log's startup time")
        XCTAssertGreaterThanOrEqual(startup, try XCTUnwrap(cold.timeToFirstByte) - 0.05)
        XCTAssertEqual(cold.stalls, 0)
        XCTAssertGreaterThan(try XCTUnwrap(cold.playingTime), 0)
        XCTAssertEqual(cold.rebufferingTime, 0, "the metric events (iOS 18): no stall, no time stalled")

        try await fixture.cache.prefetch(urls[1], length: 200_000)
        let (partlyRun, partly) = try await play(urls[1], seed: 61, fixture: fixture, reports: reports)
        XCTAssertTrue(partlyRun.passed, "\(partlyRun.failures.prefix(3))")
        XCTAssertEqual(partly.start, .partlyCached)
        XCTAssertEqual(partly.bytesFromPreload, partly.bytesFromCache)
        XCTAssertEqual(partly.bytesFromOrigin, Self.length - 200_000)

        try await fixture.cache.prefetch(urls[2])
        let (cachedRun, cached) = try await play(urls[2], seed: 62, fixture: fixture, reports: reports)
        XCTAssertTrue(cachedRun.passed, "\(cachedRun.failures.prefix(3))")
        XCTAssertEqual(cached.start, .fromCache)
        XCTAssertEqual(cached.bytesFromOrigin, 0)
        XCTAssertEqual(cached.requestsFromOrigin, 0)
        XCTAssertEqual(cached.requestsFromCache, 2)
        XCTAssertEqual(cached.originWaits, 0)
        XCTAssertEqual(cached.stalls, 0)
    }

    func testAnOriginThatPausesIsAStallOfThePlayersAndAWaitOfTheCaches() async throws {
        let fixture = try AdapterFixture(test: self)
        let reports = fixture.cache.playback.reports()
        _ = fixture.serve("/paused.mp4", length: Self.length, seed: 70, type: "video/mp4")
        // 1 MB/s: faster than the media, so only the pause stalls it.
        let link = try LinkEmulator(
            upstreamPort: fixture.origin.port,
            profile: LinkProfile(name: "test", roundTrip: 0.002, bitsPerSecond: 8_000_000))
        defer { link.stop() }
        let (run, report) = try await play(link.url(for: "/paused.mp4"), seed: 70, fixture: fixture, reports: reports) {
            _ in link.blackout(seconds: 1.2)
        }
        XCTAssertTrue(run.passed, "\(run.failures.prefix(3))")
        XCTAssertEqual(report.start, .cold)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(report.stalls), 1, "the player ran out of bytes")
        XCTAssertGreaterThanOrEqual(report.originWaits, 1, "the cache's reads waited for the origin")
        XCTAssertGreaterThanOrEqual(report.originWaitTime, 0.5)
        // The metric events time the stall (the access log cannot): about the blackout, less what was buffered
        // when it began, plus the refill to play on; well under the whole playback's time however busy the
        // machine.
        let rebuffering = try XCTUnwrap(report.rebufferingTime, "the metric events tell the time stalled")
        XCTAssertGreaterThan(rebuffering, 0.1)
        XCTAssertLessThan(rebuffering, 3)
        XCTAssertEqual(report.bytesFromOrigin, Self.length)
    }
}
#endif
