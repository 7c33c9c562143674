import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// A transfer does not read again what its session's first request stored: the session takes those bytes as
/// read (`ReadSession.takeUnread`), so a player's read of them later is a hit on what the transfer fetched,
/// not the origin's. Under load, a preload's first 16 kB were once counted as the origin's.
final class TakenUnreadTests: XCTestCase {
    private func servedAfterFirstRequest(takingUnread: Bool) async throws -> CacheStatistics {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        let session = try await cache.openRead(resource, purpose: .prefetch(.whole))
        // The first request stores every byte; nobody reads them.
        await cache.requestsEnded(for: resource)
        if takingUnread { session.takeUnread(0..<300_000) }
        var received = 0
        for try await chunk in cache.read(resource) { received += chunk.count }
        XCTAssertEqual(received, 300_000)
        XCTAssertEqual(fixture.origin.requests.count, 1, "the player's read came from disk")
        let statistics = await cache.statistics
        await cache.close()
        return statistics
    }

    func testBytesTakenUnreadAreAHitForAPlayerAndOnlyThen() async throws {
        let taken = try await servedAfterFirstRequest(takingUnread: true)
        XCTAssertEqual(taken.bytesServedFromCache, 300_000)
        XCTAssertEqual(taken.bytesServedFromOrigin, 0)
        let untaken = try await servedAfterFirstRequest(takingUnread: false)
        XCTAssertEqual(untaken.bytesServedFromOrigin, 300_000, "the first read of fetched bytes is the origin's")
    }

    func testAPrefetchsBytesAreHitsForAPlayer() async throws {
        let fixture = try HTTPFixture(test: self, length: 1_000_000)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        try await cache.prefetch(resource)
        var received = 0
        for try await chunk in cache.read(resource) { received += chunk.count }
        XCTAssertEqual(received, 1_000_000)
        let statistics = await cache.statistics
        XCTAssertEqual(statistics.bytesServedFromCache, 1_000_000)
        XCTAssertEqual(statistics.bytesServedFromOrigin, 0)
        await cache.close()
    }
}
