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
        preloader.setItems(assets.map { $0.preloadItem() }, current: 0)
        let next = assets[1].originalURL.absoluteString
        // Every download done (the current asset's and the two ahead), so the origin is quiet.
        func loaded(_ asset: SpoolAsset) -> Bool {
            if case .loaded = preloader.state(of: asset.originalURL.absoluteString) { return true }
            return false
        }
        for _ in 0..<400 where !assets.allSatisfy(loaded) {
            try await Task.sleep(for: .milliseconds(25))
        }
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
