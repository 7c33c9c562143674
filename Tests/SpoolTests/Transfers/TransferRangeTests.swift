import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// A transfer's span against the resource's length, over a real origin.
final class TransferRangeTests: XCTestCase {
    func testAPrefetchPastTheEndIsRefusedAndOneToTheEndStoresItAll() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        do {
            _ = try await cache.prefetch(resource, from: 400_000)
            XCTFail("a span past the end is refused")
        } catch SpoolError.rangeNotSatisfiable(let requested, let length) {
            XCTAssertEqual(requested, 400_000)
            XCTAssertEqual(length, 300_000)
        }
        let covered = try await cache.prefetch(resource, from: 100_000)
        XCTAssertEqual(covered, 200_000)
        let stored = await cache.cachedRanges(for: resource)
        XCTAssertTrue(stored.contains(100_000..<300_000), "stored: \(stored)")
        await cache.close()
    }
}
