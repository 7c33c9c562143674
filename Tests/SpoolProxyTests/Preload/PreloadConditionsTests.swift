import Foundation
import Spool
import SpoolTesting
import XCTest

/// A preloader under the device's conditions: nothing starts on a constrained network, and a download in
/// progress stops when the network becomes constrained and goes on from its first missing byte when it is not.
final class PreloadConditionsTests: XCTestCase {
    private static let isLoaded: @Sendable (PreloadState) -> Bool = { if case .loaded = $0 { true } else { false } }
    private static let waitsForLowDataMode: @Sendable (PreloadState) -> Bool = { $0 == .waiting([.constrainedNetwork]) }

    func testNothingIsPreloadedOnAConstrainedNetworkAndEveryItemLoadsOnceItIsNot() async throws {
        let fixture = try await ProxyFixture(test: self)
        for index in 0..<3 { try fixture.serveGenerated("c\(index).bin", length: 2_000_000, seed: UInt64(index)) }
        let items = (0..<3).map {
            PreloadItem(url: fixture.originURL("c\($0).bin"), id: "c\($0)", target: .bytes(1_000_000))
        }
        // Cellular with Low Data Mode: the cost alone would not stop a preload, Low Data Mode does.
        let conditions = SettableConditions(DeviceConditions(isExpensive: true, isConstrained: true))
        let preloader = SpoolPreloader(
            cache: fixture.cache, configuration: PreloadConfiguration(maximumConcurrentDownloads: 3),
            conditions: conditions)
        let changes = preloader.events()
        preloader.setItems(items, current: 0)
        try await waitUntil(preloader, ["c0", "c1", "c2"], are: Self.waitsForLowDataMode, changes: changes)
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "no request while Low Data Mode is on")

        conditions.update { $0.isConstrained = false }
        try await waitUntil(preloader, ["c0", "c1", "c2"], are: Self.isLoaded, changes: changes)
        for item in items {
            let stored = await fixture.cache.cachedRanges(for: item.resource).byteCount
            XCTAssertGreaterThanOrEqual(stored, 1_000_000, "\(item.id) preloaded on the expensive network")
        }
        await preloader.stop()
    }

    func testADownloadStopsWhenTheNetworkBecomesConstrainedAndGoesOnFromItsFirstMissingByte() async throws {
        let fixture = try await ProxyFixture(test: self)
        // 1 MB/s: the download is under way for seconds.
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "slow", roundTrip: 0.02, bitsPerSecond: 8_000_000))
        defer { link.stop() }
        try fixture.serveGenerated("long.bin", length: 6_000_000, seed: 9)
        let item = PreloadItem(url: link.url(for: "/long.bin"), id: "long", target: .bytes(4_000_000))
        let conditions = SettableConditions()
        let preloader = SpoolPreloader(
            cache: fixture.cache, configuration: PreloadConfiguration(itemsAhead: 0, itemsBehind: 0),
            conditions: conditions)
        let changes = preloader.events()
        preloader.setItems([item], current: 0)
        try await waitUntil(preloader, ["long"], are: preloadHasBytes, changes: changes)

        conditions.update { $0.isConstrained = true }
        try await waitUntil(preloader, ["long"], are: Self.waitsForLowDataMode, changes: changes)
        // Its requests end (what was in flight is stored), and nothing more comes while it waits.
        await fixture.cache.requestsEnded(for: item.resource)
        let storedWhileWaiting = await fixture.cache.cachedRanges(for: item.resource).byteCount
        XCTAssertGreaterThan(storedWhileWaiting, 0)
        XCTAssertLessThan(storedWhileWaiting, 4_000_000, "stopped before its target")
        XCTAssertFalse(fixture.cache.isFetching(item.resource))

        conditions.update { $0.isConstrained = false }
        try await waitUntil(preloader, ["long"], are: Self.isLoaded, changes: changes)
        await fixture.cache.requestsEnded(for: item.resource)
        let stored = await fixture.cache.cachedRanges(for: item.resource)
        XCTAssertGreaterThanOrEqual(stored.byteCount, 4_000_000)
        // Every byte that crossed the link is stored but what was in flight when the request ended (the link's
        // buffers): the download went on from its first missing byte. (nginx's own count is no measure here: it
        // counts what loopback's socket buffers took before the link read it.)
        let crossed = link.counters.bytesFromUpstream
        XCTAssertLessThanOrEqual(
            crossed, stored.byteCount + 256 * 1024,
            "bytes crossed twice (\(crossed) crossed, \(stored.byteCount) stored)")
        await preloader.stop()
    }
}
