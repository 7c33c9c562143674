import Foundation
import Spool
import SpoolTesting
import XCTest

/// A connection that goes silent is noticed by time and replaced; a link that goes silent for a while is
/// waited out; a server that refuses connections still fails a read promptly.
final class StallTests: XCTestCase {
    func testAStalledResponseIsDroppedAndTheReadResumesWhereItBroke() async throws {
        let fixture = try HTTPFixture(test: self, length: 600_000)
        // Every response stops after 150 KB and keeps its connection open, sending nothing more.
        fixture.origin.behaviour.stallAfterBytes = 150_000
        // The origin's own timeout is an hour: only the stall detector can end the silent responses.
        let cache = try fixture.makeCache(policy: FetchPolicy(stallTimeout: 0.3), originTimeout: 3600)
        let read = try await withinHangBound { await collectUntilFailure(cache.read(fixture.url)) }
        let (data, error) = try XCTUnwrap(read, "the silent responses were never dropped")
        XCTAssertNil(error)
        XCTAssertEqual(data, fixture.bytes(0..<600_000))
        XCTAssertGreaterThanOrEqual(
            fixture.origin.requests.count, 4, "each stalled response was sent again from its first missing byte")
        await cache.close()
    }

    func testASilentLinkIsWaitedOutBeyondTheRetryLimit() async throws {
        let fixture = try HTTPFixture(test: self, length: 400_000)
        // The origin answers nothing for now, as over a link in a blackout.
        fixture.origin.behaviour.answerDelay = 30
        let policy = FetchPolicy(retryLimit: 1, stallTimeout: 0.25, outageTolerance: 8)
        let cache = try fixture.makeCache(policy: policy)
        let reading = Task { await collectUntilFailure(cache.read(fixture.url)) }
        // Three silent tries, more than the retry limit allows for failures that are not silence. The test
        // origin is another server: the test reads its count, there is no event to wait on.
        let origin = fixture.origin
        let tried = await arrives("three tries reached the silent origin") {
            while origin.requestCount < 3 { try? await Task.sleep(for: .milliseconds(10)) }
        }
        XCTAssertTrue(tried)
        // The link comes back.
        fixture.origin.behaviour.answerDelay = nil
        let (data, error) = await reading.value
        XCTAssertNil(error, "a silence shorter than outageTolerance fails no read")
        XCTAssertEqual(data, fixture.bytes(0..<400_000))
        await cache.close()
    }

    func testASilenceBeyondTheOutageToleranceFailsTheReadNamingTheServer() async throws {
        let fixture = try HTTPFixture(test: self, length: 400_000)
        // Every response stops after 50 KB, and its connection stays open, silent.
        fixture.origin.behaviour.stallAfterBytes = 50_000
        let policy = FetchPolicy(retryLimit: 0, stallTimeout: 0.2, outageTolerance: 0)
        let cache = try fixture.makeCache(policy: policy, originTimeout: 3600)
        let read = try await withinHangBound { await collectUntilFailure(cache.read(fixture.url)) }
        let (_, error) = try XCTUnwrap(read)
        let server = "127.0.0.1:\(fixture.url.port ?? 0)"
        XCTAssertEqual(error as? SpoolError, .timedOut(server: server), "the engine's stall watch names the server")
        await cache.close()
    }

    func testARefusedConnectionFailsTheReadWithoutWaitingOutAnOutage() async throws {
        let closed = try TestOrigin()
        let url = closed.url(for: "/gone.mp3")
        closed.stop()
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // An outage of an hour would be waited out, and the origin's timeout is as long: only the refusal
        // itself can end the read.
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 3600),
                fetchPolicy: FetchPolicy(outageTolerance: 3600)))
        let read = try await withinHangBound { await collectUntilFailure(cache.read(url)) }
        let (_, error) = try XCTUnwrap(read, "a refusal is an answer, not a silence")
        XCTAssertNotNil(error as? SpoolError)
        await cache.close()
    }
}
