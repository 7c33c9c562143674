import Foundation
import Spool
import SpoolTesting
import XCTest

/// Two `SpoolCache`s on one directory in one process share it as two processes do (SpoolCache's
/// documentation): each reads exact bytes while the other fills the same entry, and what they leave behind
/// serves every byte with the origin gone.
final class TwoCachesInOneProcessTests: XCTestCase {
    func testTwoCachesFillingOneEntryAtOnceLeaveEveryByteCached() async throws {
        let length: Int64 = 3_000_000
        let fixture = try HTTPFixture(test: self, length: length)
        let first = try fixture.makeCache()
        let second = try fixture.makeCache()
        // Overlapping halves at once: each cache's requests fill bytes the other reads too.
        async let a = collect(first.read(fixture.url, from: 0, length: 2_000_000))
        async let b = collect(second.read(fixture.url, from: 1_000_000, length: 2_000_000))
        let (bytesA, bytesB) = try await (a, b)
        XCTAssertEqual(bytesA, fixture.bytes(0..<2_000_000))
        XCTAssertEqual(bytesB, fixture.bytes(1_000_000..<3_000_000))
        await first.close()
        await second.close()

        fixture.origin.stop()
        let offline = try fixture.makeCache()
        let storedRanges = await offline.cachedRanges(for: fixture.url)
        XCTAssertEqual(storedRanges.ranges, [0..<length], "both caches' claims merged")
        let replay = try await collect(offline.read(fixture.url))
        XCTAssertEqual(replay, fixture.bytes(0..<length), "every byte served with the origin gone")
    }
}
