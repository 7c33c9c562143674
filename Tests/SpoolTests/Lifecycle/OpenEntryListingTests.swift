import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// An entry's first record is written when its first request ends, not when it opens: until then the cache's
/// listings still know it from the open engine.
final class OpenEntryListingTests: XCTestCase {
    func testAnEntryWhoseFirstRequestStillRunsIsListed() async throws {
        let fixture = try HTTPFixture(test: self, length: 4_000_000)
        // The first request (512 KiB) takes about a second at this rate.
        fixture.origin.behaviour.throttleBytesPerSecond = 500_000
        let cache = try fixture.makeCache()
        var iterator = cache.read(fixture.url).makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first.map { Data($0) }, fixture.bytes(0..<Int64(first?.count ?? 0)))
        let entries = await cache.entries()
        XCTAssertEqual(entries.map(\.url), [fixture.url.absoluteString], "listed while its first request runs")
        XCTAssertEqual(entries.first?.info.length, 4_000_000)
        await cache.close()
    }
}
