import Foundation
import Spool
import SpoolTesting
import XCTest

/// Byte budgets for preloading over a real origin: a preloader keeps at most its budget (plus the item that
/// crossed it) preloaded ahead of its player, nearest items first; the rest waits, saying why, and loads once
/// the player reaches an item. The budget of all preloaders together holds one back for another's bytes.
final class PreloadBudgetTests: XCTestCase {
    private static let isLoaded: @Sendable (PreloadState) -> Bool = { if case .loaded = $0 { true } else { false } }
    private static let waitsForBudget: @Sendable (PreloadState) -> Bool = { $0 == .waiting([.byteBudget]) }

    private func items(_ fixture: ProxyFixture, _ prefix: String, count: Int) throws -> [PreloadItem] {
        for index in 0..<count {
            try fixture.serveGenerated("\(prefix)\(index).bin", length: 3_000_000, seed: UInt64(index))
        }
        return (0..<count).map {
            PreloadItem(url: fixture.originURL("\(prefix)\($0).bin"), id: "\(prefix)\($0)", target: .bytes(1_000_000))
        }
    }

    private func stored(_ fixture: ProxyFixture, _ item: PreloadItem) async -> Int64 {
        await fixture.cache.cachedRanges(for: item.resource).byteCount
    }

    func testAPreloaderKeepsItsBudgetAheadOfThePlayerAndGoesOnWhenThePlayerMoves() async throws {
        let fixture = try await ProxyFixture(test: self)
        let items = try items(fixture, "b", count: 5)
        // One at a time, four ahead, 1.5 MB: b1 and b2 (2 MB, the second crossing the budget), then b3 waits.
        let preloader = SpoolPreloader(
            cache: fixture.cache,
            configuration: PreloadConfiguration(itemsAhead: 4, maximumConcurrentDownloads: 1, byteBudget: 1_500_000))
        let changes = preloader.events()
        preloader.setItems(items, current: 0)
        try await waitUntil(preloader, ["b0", "b1", "b2"], are: Self.isLoaded, changes: changes)
        try await waitUntil(preloader, ["b3"], are: Self.waitsForBudget, changes: changes)
        await fixture.cache.transfers.settled()
        let waiting = await stored(fixture, items[3])
        XCTAssertEqual(waiting, 0, "nothing of b3 is fetched while the budget is spent")
        XCTAssertNil(preloader.state(of: "b4"), "b4 waits behind b3 for the preloader's one download")

        // The player reaches b1: its megabyte is the player's now, and b3 goes on; then b4 waits in turn.
        preloader.setCurrent(1)
        try await waitUntil(preloader, ["b3"], are: Self.isLoaded, changes: changes)
        try await waitUntil(preloader, ["b4"], are: Self.waitsForBudget, changes: changes)
        let b3 = await stored(fixture, items[3])
        XCTAssertGreaterThanOrEqual(b3, 1_000_000)
        await preloader.stop()
        XCTAssertEqual(fixture.cache.transfers.jobCount, 0, "a stopped preloader leaves no job waiting")
    }

    func testTheBudgetOfAllPreloadersHoldsOneBackForAnothersBytes() async throws {
        let fixture = try await ProxyFixture(
            test: self, transferLimits: TransferLimits(preloadBytes: 1_500_000))
        let feed = try items(fixture, "f", count: 3)
        let other = try items(fixture, "o", count: 2)
        let first = SpoolPreloader(
            cache: fixture.cache, configuration: PreloadConfiguration(maximumConcurrentDownloads: 1))
        let firstChanges = first.events()
        first.setItems(feed, current: 0)
        // f1 and f2: 2 MB ahead of the first player, past the shared 1.5 MB.
        try await waitUntil(first, ["f1", "f2"], are: Self.isLoaded, changes: firstChanges)
        let second = SpoolPreloader(
            cache: fixture.cache, configuration: PreloadConfiguration(maximumConcurrentDownloads: 1))
        let secondChanges = second.events()
        second.setItems(other, current: 0)
        try await waitUntil(second, ["o0"], are: Self.isLoaded, changes: secondChanges)
        try await waitUntil(second, ["o1"], are: Self.waitsForBudget, changes: secondChanges)
        // The first player's preloader stops: what it held counts no more.
        await first.stop()
        try await waitUntil(second, ["o1"], are: Self.isLoaded, changes: secondChanges)
        await second.stop()
    }
}
