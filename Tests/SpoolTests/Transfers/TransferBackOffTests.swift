import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// An origin that answers `429 Too Many Requests` with `Retry-After` is asked nothing more by the cache's
/// transfers until then, and the transfer goes on after: against a real origin.
final class TransferBackOffTests: XCTestCase {
    func testAPrefetchTheOriginRefusesWaitsForItsRetryAfterAndThenCompletes() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        // Longer than a read waits for itself (`FetchPolicy.longestRetryAfter`): the scheduler holds the host.
        fixture.origin.behaviour.serverErrorStatus = 429
        fixture.origin.behaviour.serverErrorFields = ["Retry-After": "3"]
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        let prefetch = Task { try await cache.prefetch(resource) }
        await cache.transfers.until { !$0.heldHosts.isEmpty }
        XCTAssertEqual(fixture.origin.requests.count, 1, "the refused request was not sent again at once")
        fixture.origin.behaviour.serverErrorStatus = nil
        let covered = try await prefetch.value
        XCTAssertEqual(covered, 300_000)
        XCTAssertEqual(fixture.origin.requests.count, 2, "one refused request, then one for all of it")
        XCTAssertTrue(cache.transfers.heldHosts.isEmpty)
        let stored = try await Self.collect(cache.read(resource))
        XCTAssertEqual(stored, TestContent.generatedBytes(seed: fixture.seed, range: 0..<300_000))
        await cache.close()
    }

    private static func collect(_ stream: ByteStream) async throws -> Data {
        var data = Data()
        for try await chunk in stream { data.append(chunk) }
        return data
    }
}
