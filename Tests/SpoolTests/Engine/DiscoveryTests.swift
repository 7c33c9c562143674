import Foundation
import Spool
import SpoolTesting
import XCTest

/// The first request of an unknown resource brings its content information to every caller waiting for it;
/// a caller that is cancelled stops waiting, and the request goes on for the others.
final class DiscoveryTests: XCTestCase {
    func testACancelledCallerStopsWaitingAndTheRequestGoesOnForTheNext() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        // The origin answers after half a second: the first caller is cancelled while it waits.
        fixture.origin.behaviour.answerDelay = 0.5
        let cache = try fixture.makeCache()
        let first = Task { try await cache.contentInfo(for: fixture.url) }
        first.cancel()
        do {
            let info = try await first.value
            XCTFail("a cancelled caller waited for the answer: \(info)")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        let info = try await cache.contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 300_000)
        var iterator = cache.read(fixture.url, from: 0, length: 1000).makeAsyncIterator()
        let bytes = try await iterator.next()
        XCTAssertEqual(bytes.map { Data($0) }, fixture.bytes(0..<1000))
        XCTAssertEqual(fixture.origin.requests.count, 1, "the second caller and the read took the first's request")
        await cache.close()
    }
}
