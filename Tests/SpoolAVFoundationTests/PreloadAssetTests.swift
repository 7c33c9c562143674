// Driven by the AVFoundation stand-in's player simulator, which exists on Linux only.
#if os(Linux)
import AVFoundationStandIn
import Foundation
import Spool
import SpoolAVFoundation
import SpoolTesting
import XCTest

/// `SpoolAsset`s in a feed, preloaded by `SpoolPreloader`: the next asset then plays its start without an
/// origin request.
final class PreloadAssetTests: XCTestCase {
    func testAPreloadedAssetPlaysItsStartWithoutTheOrigin() async throws {
        let fixture = try AdapterFixture(test: self)
        let length: Int64 = 4_000_000
        let assets = (0..<3).map { index in
            SpoolAsset(
                url: fixture.serve("/feed/\(index).mp4", length: length, seed: UInt64(10 + index), type: "video/mp4"),
                cache: fixture.cache)
        }
        let preloader = SpoolPreloader(
            cache: fixture.cache,
            configuration: PreloadConfiguration(target: .bytes(800_000), waitsForCurrentItem: false))
        // Subscribed before the items are set: no event is missed.
        let events = preloader.events()
        preloader.setItems(assets.map { $0.preloadItem() }, current: 0)
        let next = assets[1].originalURL.absoluteString
        // Every download done (the current asset's and the two ahead), so the origin is quiet: woken by the
        // preloader's events, with a guard against a hang (no measurement).
        let ids = Set(assets.map(\.originalURL.absoluteString))
        let allLoaded = expectation(description: "every asset loaded")
        let watching = Task {
            var loaded = Set<String>()
            for await event in events {
                if case .loaded = event.state { loaded.insert(event.itemID) }
                if loaded == ids { return allLoaded.fulfill() }
            }
        }
        await fulfillment(of: [allLoaded], timeout: 60)
        watching.cancel()
        guard case .loaded(let bytes) = preloader.state(of: next) else {
            return XCTFail("not loaded: \(String(describing: preloader.state(of: next)))")
        }
        XCTAssertEqual(bytes, 800_000)
        let requestsBefore = fixture.origin.requests.count
        let sentBefore = fixture.origin.bodyBytesSent
        // AVPlayer's start: the content information with two bytes, then the first 600 kB.
        let script = PlayerScript(
            requests: [ScriptedRequest(offset: 0, length: 2), ScriptedRequest(offset: 0, length: 600_000)],
            toEndReadLimit: nil)
        let report = await fixture.play(assets[1].originalURL, length: length, seed: 11, script: script)
        XCTAssertTrue(report.passed, "\(report.failures.prefix(3))")
        XCTAssertEqual(fixture.origin.requests.count, requestsBefore, "the start of the preloaded asset was fetched")
        XCTAssertEqual(fixture.origin.bodyBytesSent, sentBefore)
        await preloader.stop()
        withExtendedLifetime(assets) {}
    }
}
#endif
