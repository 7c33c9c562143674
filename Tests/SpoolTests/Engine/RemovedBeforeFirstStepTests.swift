import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// An app may remove a resource while a read of it is open but has delivered nothing yet (a problem handler
/// that drops an entry it cannot read, `spool rm` beside a player): the read asks for the content information
/// again and serves the resource's bytes, or fails with `resourceChanged` when the origin now has another
/// version, whose length or validators the read's caller may already have announced.
final class RemovedBeforeFirstStepTests: XCTestCase {
    private let link = LinkEstimate()

    func testAReaderThatDeliveredNothingAsksAgainAndOneThatDeliveredBytesCannotGoOn() {
        var state = EngineState(
            policy: FetchPolicy(), info: ContentInfo(length: 1_000_000), stored: ByteRangeSet([0..<200_000]))
        let fresh = state.addReader(requestedEnd: nil)
        let old = state.addReader(requestedEnd: nil)
        guard case .read(_, let versionNumber) = state.driverStep(reader: old, position: 0, link: link) else {
            return XCTFail("stored bytes are read")
        }
        state.markDelivered(reader: old, versionNumber: versionNumber)
        state.dropVersion()
        guard case .fail(let error) = state.driverStep(reader: fresh, position: 0, link: link) else {
            return XCTFail("no content information: no step but a failure")
        }
        XCTAssertTrue(error is EngineState.ContentInfoDropped, "a reader that delivered nothing asks again: \(error)")
        guard case .fail(SpoolError.resourceChanged) = state.driverStep(reader: old, position: 100_000, link: link)
        else {
            return XCTFail("a reader that delivered old bytes cannot go on with another version's")
        }
    }

    func testAReadOpenedBeforeTheRemovalServesTheResourceFromTheOrigin() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        try await cache.prefetch(resource)
        let session = try await cache.openRead(resource, purpose: .playback())
        await cache.remove(resource)
        fixture.origin.resetCounters()
        let data = try await session.readAll()
        XCTAssertEqual(data, fixture.bytes(0..<300_000), "the resource's bytes, fetched again")
        XCTAssertFalse(fixture.origin.requests.isEmpty, "the removed bytes came from the origin")
        await cache.close()
    }

    func testAReadOpenedBeforeTheRemovalFailsWhenTheOriginHasAnotherVersion() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        try await cache.prefetch(resource)
        let session = try await cache.openRead(resource, purpose: .playback())
        await cache.remove(resource)
        // The same length, other bytes: only the validators tell.
        fixture.origin.serve(.generated(length: 300_000, seed: 99), at: fixture.url.path, contentType: "audio/mpeg")
        do {
            let data = try await session.readAll()
            XCTFail("\(data.count) bytes of another version served under the old one's head")
        } catch SpoolError.resourceChanged {
        }
        await cache.close()
    }
}
