import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolProxy
import SpoolTesting
import XCTest

/// `SpoolPreloader` over a real origin: preloaded items play through the proxy without origin requests for
/// what was preloaded, a swipe cancels at once, playback takes the link from preloads, and the totals add up.
final class PreloaderTests: XCTestCase {
    func testPreloadedVideosPlayWithoutOriginRequestsForWhatWasPreloaded() async throws {
        let fixture = try await ProxyFixture(test: self)
        // Two with `moov` first, two with it at the end.
        for index in 0..<4 {
            _ = try MediaSamples.mp4(in: fixture.www, name: "v\(index).mp4", seconds: 8, faststart: index % 2 == 0)
        }
        let items = (0..<4).map { PreloadItem(url: fixture.originURL("v\($0).mp4"), id: "v\($0)") }
        let preloader = SpoolPreloader(cache: fixture.cache)
        let events = preloader.events()
        let changes = preloader.events()
        preloader.setItems(items, current: 0)
        // The current item first, then the two ahead.
        try await waitUntil(
            preloader, ["v0", "v1", "v2"], are: { if case .loaded = $0 { true } else { false } }, changes: changes)
        XCTAssertNil(preloader.state(of: "v3"), "v3 is outside the window (two ahead)")
        try await fixture.assertPlaysWithoutRefetching("v1.mp4", seconds: 3)
        try await fixture.assertPlaysWithoutRefetching("v2.mp4", seconds: 3)
        preloader.setCurrent(2)
        try await waitUntil(preloader, ["v3"], are: { if case .loaded = $0 { true } else { false } }, changes: changes)
        try await fixture.assertPlaysWithoutRefetching("v3.mp4", seconds: 3)
        await preloader.stop()

        let totals = preloader.totals
        XCTAssertEqual(totals.itemsStarted, 4)
        XCTAssertEqual(totals.itemsLoaded, 4)
        XCTAssertGreaterThan(totals.bytesPreloaded, 0)
        XCTAssertEqual(totals.bytesPlayed + totals.bytesWasted, totals.bytesPreloaded)
        XCTAssertGreaterThan(totals.bytesPlayed, 0, "ffmpeg read what was preloaded of v1, v2 and v3")
        var seen: [String: [PreloadState]] = [:]
        for await event in events { seen[event.itemID, default: []].append(event.state) }
        XCTAssertEqual(seen["v1"]?.first, .queued)
        XCTAssertTrue(seen["v1"]?.contains { if case .loading = $0 { true } else { false } } == true)
        if case .loaded = seen["v1"]?.last {
        } else {
            XCTFail("v1's last event: \(String(describing: seen["v1"]?.last))")
        }
    }

    func testASwipeCancelsDownloadsThatLeftTheWindowAtOnce() async throws {
        let fixture = try await ProxyFixture(test: self)
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "slow", roundTrip: 0.02, bitsPerSecond: 8_000_000))
        defer { link.stop() }
        for index in 0..<6 { try fixture.serveGenerated("f\(index).bin", length: 6_000_000, seed: UInt64(index)) }
        let items = (0..<6).map {
            PreloadItem(url: link.url(for: "/f\($0).bin"), id: "f\($0)", target: .bytes(4_000_000))
        }
        // The current item and the two ahead at once.
        let preloader = SpoolPreloader(
            cache: fixture.cache, configuration: PreloadConfiguration(maximumConcurrentDownloads: 3))
        let changes = preloader.events()
        preloader.setItems(items, current: 0)
        // 4 MB at 1 MB/s: the downloads are under way once f1 has stored bytes.
        try await waitUntil(preloader, ["f1"], are: preloadHasBytes, changes: changes)
        let cachedBefore = await fixture.cache.cachedRanges(for: items[1].resource).byteCount
        XCTAssertGreaterThan(cachedBefore, 0)
        XCTAssertLessThan(cachedBefore, 4_000_000)
        preloader.setCurrent(5)
        try await waitUntil(preloader, ["f1", "f2"], are: { $0 == .cancelled }, changes: changes)
        // Nothing more arrives for them once their requests have ended.
        let cachedAfterCancel = await fixture.cache.cachedRanges(for: items[1].resource).byteCount
        await fixture.cache.requestsEnded(for: items[1].resource)
        let storedRanges1 = await fixture.cache.cachedRanges(for: items[1].resource)
        XCTAssertLessThanOrEqual(
            storedRanges1.byteCount - cachedAfterCancel, 256 * 1024)
        // The one item of the new window (one behind f5) took a freed slot.
        XCTAssertNotNil(preloader.state(of: "f4"))
        XCTAssertNil(preloader.state(of: "f3"))
        await preloader.stop()
        // f1 and f2 were never played: what they stored is wasted.
        let totals = preloader.totals
        XCTAssertGreaterThan(totals.bytesWasted, 2 * cachedBefore / 2)
        XCTAssertEqual(totals.bytesPlayed + totals.bytesWasted, totals.bytesPreloaded)
    }

    func testPlaybackTakesTheLinkFromPreloadsAndNothingIsFetchedTwice() async throws {
        let fixture = try await ProxyFixture(test: self)
        // 2 MB/s. AsyncHTTPClient stops reading a paused request's socket, so TCP hands the link over.
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "slow", roundTrip: 0.02, bitsPerSecond: 16_000_000))
        defer { link.stop() }
        let transport = AsyncHTTPClientTransport()
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: fixture.cacheDirectory.appendingPathComponent("ahc"),
                origin: HTTPOrigin(transport: transport)))
        try fixture.serveGenerated("next.bin", length: 8_000_000, seed: 1)
        try fixture.serveGenerated("playing.bin", length: 3_000_000, seed: 2)
        let next = PreloadItem(url: link.url(for: "/next.bin"), id: "next", target: .bytes(6_000_000))
        let preloader = SpoolPreloader(cache: cache, configuration: PreloadConfiguration(waitsForCurrentItem: false))
        let changes = preloader.events()
        preloader.setItems([PreloadItem(url: link.url(for: "/playing.bin"), id: "playing"), next], current: 0)
        try await waitUntil(preloader, ["next"], are: preloadHasBytes, changes: changes)
        let storedRanges2 = await cache.cachedRanges(for: next.resource)
        XCTAssertGreaterThan(storedRanges2.byteCount, 0, "the preload runs")
        // A player reads 3 MB. Had the preload shared the link meanwhile, it would carry about twice that; the
        // link's bytes tell, where its time would depend on how busy the machine is.
        let linkBefore = link.bytesToClients
        var played = 0
        for try await chunk in cache.read(link.url(for: "/playing.bin")) { played += chunk.count }
        let carried = link.bytesToClients - linkBefore
        XCTAssertEqual(played, 3_000_000)
        // What the preload's socket held when it paused (and the first round trip's overlap) is all it got.
        XCTAssertLessThanOrEqual(carried, 3_000_000 + 1_200_000, "the preload shared the link with playback")
        try await waitUntil(
            preloader, ["next"], are: { if case .loaded = $0 { true } else { false } }, changes: changes)
        let storedRanges1 = await cache.cachedRanges(for: next.resource)
        XCTAssertEqual(storedRanges1.byteCount, 6_000_000)
        await preloader.stop()
        await cache.close()
        await transport.shutdown()
        // Paused, not cancelled: the origin sent each byte once.
        let sent = try fixture.nginx.accessLog().filter { $0.path == "/next.bin" }.map(\.bodyBytesSent).reduce(0, +)
        XCTAssertLessThanOrEqual(sent, 6_000_000 + 64 * 1024, "bytes of the preload were sent twice")
    }
}
