import Foundation
import Spool
import SpoolTesting
import XCTest

/// Reads through a transport whose bodies are pushed and pause, as URLSession's on Apple's platforms
/// (`PushingTransport`): a read is one request, a reader that stops pauses the transfer once the engine holds
/// the request back, and its return resumes it, every byte right.
final class PushedBodyReadTests: XCTestCase {
    func testAReaderThatStopsPausesTheTransferAndItsReturnResumesIt() async throws {
        let length: Int64 = 8_000_000
        let fixture = try HTTPFixture(test: self, transport: .pushedBodies, length: length)
        let transport = PushingTransport()
        addTeardownBlock { await transport.shutdown() }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: fixture.directory, origin: HTTPOrigin(transport: transport)))
        var chunks = cache.read(fixture.url).makeAsyncIterator()
        var data = Data()
        while data.count < 1_000_000, let chunk = try await chunks.next() { data.append(chunk) }
        // The reader stops: its request stores a read-ahead beyond it and is held, its body fills to the mark,
        // and the transfer pauses.
        let paused = await eventually(timeout: 30) { transport.pauses > 0 }
        XCTAssertTrue(paused, "the transfer never paused: \(fixture.origin.bodyBytesSent) bytes sent")
        let stored = await cache.cachedRanges(for: fixture.url).byteCount
        XCTAssertLessThan(stored, length / 2, "the request ran on into the cache while its reader stopped")
        // It reads on: the hold lets go, the body is taken, and the transfer resumes to the end.
        while let chunk = try await chunks.next() { data.append(chunk) }
        XCTAssertEqual(data, fixture.bytes(0..<length))
        XCTAssertEqual(fixture.origin.requests.count, 1, "one request for the read, as a player's")
        XCTAssertLessThanOrEqual(fixture.origin.bodyBytesSent, length, "each byte once")
        await cache.close()
    }
}
