import Foundation
import Spool
import SpoolTesting
import XCTest

/// A read given a consumer (the proxy passes one for each "to the end" response) asks it before the origin
/// sends anything its disk-fed deliveries ran ahead of: once, and only when it has not waited for the origin.
final class ConsumerPacingTests: XCTestCase {
    private struct HungUp: Error {}

    func testReadFedFromDiskAsksItsConsumerBeforeItsFirstOriginRequest() async throws {
        let fixture = try HTTPFixture(test: self, length: 4 * 1024 * 1024)
        let cache = try fixture.makeCache()
        for try await _ in cache.read(fixture.url, from: 0, length: 300_000) {}
        let storedRanges = await cache.cachedRanges(for: Resource(url: fixture.url))
        XCTAssertEqual(storedRanges.ranges, [0..<300_000])
        fixture.origin.resetCounters()

        // A consumer that has gone away: the read ends where the cached bytes do, and the origin hears nothing.
        let asked = Locked(0)
        let abandoned = cache.read(Resource(url: fixture.url), from: 100_000) {
            asked.withLock { $0 += 1 }
            throw HungUp()
        }
        let (delivered, failure) = await collectUntilFailure(abandoned)
        XCTAssertEqual(delivered, fixture.bytes(100_000..<300_000), "every cached byte is delivered first")
        XCTAssertTrue(failure is HungUp, "the read ends with the consumer's error, not \(String(describing: failure))")
        XCTAssertEqual(asked.withLock { $0 }, 1)
        await cache.close()
        XCTAssertEqual(fixture.origin.requestCount, 0, "no origin request for a consumer that went away")

        // A consumer that keeps up: asked once, then the read runs on from the origin like any other.
        let reopened = try fixture.makeCache()
        asked.withLock { $0 = 0 }
        var received = Data()
        for try await chunk in reopened.read(
            Resource(url: fixture.url), from: 100_000, consumer: { asked.withLock { $0 += 1 } })
        {
            received.append(chunk)
        }
        XCTAssertEqual(received, fixture.bytes(100_000..<fixture.length))
        XCTAssertEqual(asked.withLock { $0 }, 1, "asked once, not before every origin request")
        XCTAssertGreaterThan(fixture.origin.requestCount, 1)
        await reopened.close()
    }

    func testReadThatWaitedForTheOriginFirstNeverAsks() async throws {
        let fixture = try HTTPFixture(test: self, length: 4 * 1024 * 1024)
        let cache = try fixture.makeCache()
        // Cached bytes in the middle: the read below runs into them and out again.
        for try await _ in cache.read(fixture.url, from: 500_000, length: 300_000) {}
        let asked = Locked(0)
        var received = Data()
        for try await chunk in cache.read(
            Resource(url: fixture.url), from: 0, length: 1_200_000, consumer: { asked.withLock { $0 += 1 } })
        {
            received.append(chunk)
        }
        XCTAssertEqual(received, fixture.bytes(0..<1_200_000))
        XCTAssertEqual(asked.withLock { $0 }, 0, "a read that started at the origin has shown its consumer keeps up")
        await cache.close()
    }
}
