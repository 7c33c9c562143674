import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// A caller that will read every byte (a preload piece, an HLS segment pinned) asks for the content information
/// with `ReadExtent.whole`: its first request is sized for all of it. When the read that follows is cancelled
/// part-way, that request ends with it, against a real origin: it used to run on to its end for nobody.
final class WholeReadDiscoveryTests: XCTestCase {
    func testAWholeReadCancelledPartWayEndsItsFirstRequest() async throws {
        let length: Int64 = 20_000_000
        let fixture = try HTTPFixture(test: self, length: length)
        // Ten seconds for the whole file: the request is still running when the read leaves.
        fixture.origin.behaviour.throttleBytesPerSecond = 2_000_000
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        _ = try await cache.openRead(resource, purpose: .prefetch(.whole))
        let reading = Task {
            var received: Int64 = 0
            for try await chunk in cache.read(resource, from: 0, length: length, purpose: .prefetch(.whole)) {
                received += Int64(chunk.count)
                if received >= 1_000_000 { break }
            }
            return received
        }
        let received = try await reading.value
        XCTAssertGreaterThanOrEqual(received, 1_000_000)
        XCTAssertEqual(
            fixture.origin.requests.map(\.range), ["bytes=0-\(FetchPolicy.wholeRequestLimit - 1)"],
            "one request, sized for the whole read (its length unknown)")
        // The read left: its request ends too, long before the file would have.
        let ended = try await withinHangBound(seconds: 60) { () async -> Bool in
            await cache.requestsEnded(for: resource)
            return true
        }
        XCTAssertEqual(ended, true, "the request never ended")
        XCTAssertLessThan(
            fixture.origin.bodyBytesSent, length / 2, "the request ran on for a read that had left")
        await cache.close()
    }
}
