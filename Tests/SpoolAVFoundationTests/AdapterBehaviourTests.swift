// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// What the adapter owes AVFoundation beyond serving bytes: finishing what the player no longer cancels,
/// surviving copies, refusing what it cannot serve without crashing the app.
final class AdapterBehaviourTests: XCTestCase {
    func testRequestCarryingInformationAndDataAndOverlappingRequests() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 2_000_000
        let url = fixture.serve("/x/track.mp3", length: length, seed: 21, type: "audio/mpeg")
        let script = PlayerScript(
            requests: [
                ScriptedRequest(info: true, data: true, offset: 0, length: 2),
                ScriptedRequest(offset: 0, length: nil, cancelAfter: 100_000),
                ScriptedRequest(offset: 1_500_000, length: 300_000, openWith: [1]),
                ScriptedRequest(offset: 1_600_000, length: nil, openWith: [1, 2]),
                ScriptedRequest(offset: 50_000, length: 10_000, openWith: [3]),
            ], toEndReadLimit: nil)
        let report = await fixture.play(url, length: length, seed: 21, script: script, expectedType: "public.mp3")
        XCTAssertTrue(report.passed, "\(report.failures)")
    }

    func testOriginFailureFinishesWithAnURLError() async throws {
        let fixture = try AdapterFixture(test: self)
        let url = fixture.origin.url(for: "/missing.mp3")
        let report = await fixture.play(url, length: 1000, seed: 1, script: .linearPlay(length: 1000))
        XCTAssertFalse(report.passed)
        XCTAssertTrue(report.failures.contains { $0.contains("NSURLErrorDomain") }, "\(report.failures)")
    }

    @MainActor
    func testQueueCancellerReleasesTheRequestsOfAnItemThatLeaves() async throws {
        let fixture = try AdapterFixture(test: self)
        let (url, length) = fixture.serveSlowly("/q/long.mp3", seed: 22, type: "audio/mpeg")
        let asset = SpoolAsset(url: url, cache: fixture.cache)
        let item = AVPlayerItem(asset: asset)
        let player = AVQueuePlayer(items: [item, AVPlayerItem(url: URL(string: "https://example.com/next.mp3")!)])
        let canceller = QueueLoadingCanceller(player: player)
        let playing = fixture.startPlaying(asset, length: length, seed: 22)
        try await fixture.until("bytes flow") { fixture.origin.bodyBytesSent >= 200_000 }
        canceller.remove(item)
        let report = await playing.value
        XCTAssertTrue(report.passed, "\(report.failures)")
        XCTAssertEqual(
            report.requestsReleased, 1, "AVFoundation cancels nothing: the adapter finishes the request itself")
        // No traffic once the item left the queue: no request of it runs in the engine any more.
        await fixture.cache.requestsEnded(for: Resource(url: url))
        XCTAssertLessThan(fixture.origin.bodyBytesSent, 3_000_000)
        XCTAssertFalse(player.items().contains { $0 === item })
    }

    @MainActor
    func testAnItemThatPlayedToItsEndIsReleasedWhicheverThreadAnnouncesIt() async throws {
        let fixture = try AdapterFixture(test: self)
        let (url, length) = fixture.serveSlowly("/q/ended.mp3", seed: 23, type: "audio/mpeg")
        let asset = SpoolAsset(url: url, cache: fixture.cache)
        let item = AVPlayerItem(asset: asset)
        let canceller = QueueLoadingCanceller(player: AVQueuePlayer(items: [item]))
        let playing = fixture.startPlaying(asset, length: length, seed: 23)
        try await fixture.until("bytes flow") { fixture.origin.bodyBytesSent >= 200_000 }
        // AVFoundation may post the notification on any thread.
        DispatchQueue.global().async {
            NotificationCenter.default.post(name: AVPlayerItem.didPlayToEndTimeNotification, object: item)
        }
        let report = await playing.value
        XCTAssertTrue(report.passed, "\(report.failures)")
        XCTAssertEqual(report.requestsReleased, 1)
        withExtendedLifetime(canceller) {}
    }

    func testCancelLoadingFinishesEveryOpenRequestWithACancellationError() async throws {
        let fixture = try AdapterFixture(test: self)
        let (url, length) = fixture.serveSlowly("/c/long.mp4", seed: 24, type: "video/mp4")
        let asset = SpoolAsset(url: url, cache: fixture.cache)
        let script = PlayerScript(
            requests: [
                ScriptedRequest(info: true, data: true, offset: 0, length: 2),
                ScriptedRequest(offset: 0, length: nil),
                ScriptedRequest(offset: length - 4_000_000, length: 4_000_000, openWith: [1]),
            ], toEndReadLimit: nil)
        let playing = fixture.startPlaying(asset, length: length, seed: 24, script: script)
        // Both reads are open once the origin has had a request for each (and the information's).
        try await fixture.until("both requests sent") {
            fixture.origin.requestCount >= 2 && fixture.origin.bodyBytesSent >= 200_000
        }
        asset.cancelLoading()
        let report = await playing.value
        XCTAssertTrue(report.passed, "\(report.failures)")
        XCTAssertEqual(report.requestsReleased, 2, "both open requests were finished, none left hanging")
    }

    func testDroppingTheAssetFinishesItsOpenRequests() async throws {
        let fixture = try AdapterFixture(test: self)
        let (url, length) = fixture.serveSlowly("/d/long.mp4", seed: 25, type: "video/mp4")
        var asset: SpoolAsset? = SpoolAsset(url: url, cache: fixture.cache)
        weak let released = asset
        let playing = fixture.startPlaying(try XCTUnwrap(asset), length: length, seed: 25, hold: .weak)
        try await fixture.until("bytes flow") { fixture.origin.bodyBytesSent >= 200_000 }
        asset = nil
        XCTAssertNil(released, "nothing but the app holds the asset")
        let report = await playing.value
        XCTAssertTrue(report.passed, "\(report.failures)")
        XCTAssertEqual(report.requestsReleased, 1)
    }

    func testACopyIsTheAssetItselfAndPlaysThroughTheCache() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 1_000_000
        let url = fixture.serve("/copy/a.mp3", length: length, seed: 26, type: "audio/mpeg")
        let asset = SpoolAsset(url: url, cache: fixture.cache)
        let copy = try XCTUnwrap(asset.copy() as? SpoolAsset, "a copy made by AVURLAsset would lose Spool's delegate")
        XCTAssertTrue(copy === asset)
        let report = await PlayerSimulator(
            asset: copy, expectedBytes: { TestContent.generatedBytes(seed: 26, range: $0) }, resourceLength: length,
            expectedContentType: "public.mp3"
        ).run(.linearPlay(length: length), timeout: 30)
        XCTAssertTrue(report.passed, "\(report.failures)")
    }

    func testATypeOutsideAllowedContentTypesIsRefusedInsteadOfCrashing() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 500_000
        let url = fixture.serve("/allowed/a.mp3", length: length, seed: 27, type: "audio/mpeg")
        func play(allowing allowed: [String]) async -> SimulationReport {
            await PlayerSimulator(
                asset: SpoolAsset(url: url, cache: fixture.cache),
                expectedBytes: { TestContent.generatedBytes(seed: 27, range: $0) },
                resourceLength: length, expectedContentType: "public.mp3", allowedContentTypes: allowed
            ).run(.linearPlay(length: length), timeout: 30)
        }
        let accepted = await play(allowing: ["public.mpeg-4", "PUBLIC.MP3", "com.apple.m4a-audio"])
        XCTAssertTrue(accepted.passed, "\(accepted.failures)")

        let refused = await play(allowing: ["public.mpeg-4", "com.apple.quicktime-movie"])
        XCTAssertFalse(
            refused.failures.contains { $0.contains("NSInternalInconsistencyException") }, "\(refused.failures)")
        XCTAssertTrue(
            refused.failures.contains { $0.contains("NSURLErrorDomain") && $0.contains("accepts only") },
            "\(refused.failures)")
    }

    func testAnHLSPlaylistIsRefusedWithAClearError() async throws {
        let fixture = try AdapterFixture(test: self)
        let playlist = Data("#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nseg0.ts\n#EXT-X-ENDLIST\n".utf8)
        fixture.origin.serve(.data(playlist), at: "/hls/index.m3u8", contentType: "application/vnd.apple.mpegurl")
        let report = await PlayerSimulator(
            asset: SpoolAsset(url: fixture.origin.url(for: "/hls/index.m3u8"), cache: fixture.cache),
            expectedBytes: { _ in Data() }, resourceLength: Int64(playlist.count)
        ).run(PlayerScript(requests: [ScriptedRequest(info: true, data: true, offset: 0, length: 2)]), timeout: 30)
        XCTAssertTrue(
            report.failures.contains { $0.contains("HLS playlist") && $0.contains("SpoolProxy") }, "\(report.failures)")
    }

    func testAToEndRequestBeforeTheLengthIsKnownPlays() async throws {
        // No probe first: the request reports requestedLength NSIntegerMax, as AVFoundation does.
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 1_500_000
        let url = fixture.serve("/nolength/a.mp4", length: length, seed: 28, type: "video/mp4")
        let script = PlayerScript(
            requests: [
                ScriptedRequest(offset: 0, length: nil, cancelAfter: 200_000),
                ScriptedRequest(info: true, data: false, offset: 0, length: 2),
                ScriptedRequest(offset: 200_000, length: nil),
            ], toEndReadLimit: nil)
        let report = await fixture.play(url, length: length, seed: 28, script: script, expectedType: "public.mpeg-4")
        XCTAssertTrue(report.passed, "\(report.failures)")
        XCTAssertGreaterThanOrEqual(report.bytesPlayed, length)
    }
}
#endif
