import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolTesting
import XCTest

/// What only the AsyncHTTPClient transport promises: the network waits for a slow reader, bodies come in
/// large chunks, and the client stops cleanly.
final class AsyncHTTPClientTransportTests: XCTestCase {
    private func makeFixture(length: Int64) throws -> HTTPFixture {
        try HTTPFixture(test: self, transport: .asyncHTTPClient, length: length)
    }

    func testASlowReaderHoldsTheOriginBack() async throws {
        let length: Int64 = 128 << 20
        let fixture = try makeFixture(length: length)
        let response = try await fixture.makeHTTPOrigin().read(OriginReadRequest(url: fixture.url, range: 0..<length))
        var iterator = response.body.makeAsyncIterator()
        var received: Int64 = 0
        // 75 chunks, 20 ms apart: a reader far slower than the origin over loopback. The pause is the slow
        // reader itself, not a wait for something to happen.
        for _ in 0..<75 {
            guard let chunk = try await iterator.next() else { break }
            XCTAssertEqual(chunk, fixture.bytes(received..<(received + Int64(chunk.count))))
            received += Int64(chunk.count)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let sent = fixture.origin.bodyBytesSent
        // What the origin sent beyond what was read sits in socket buffers and the client's one buffer.
        XCTAssertLessThan(sent - received, 24 << 20, "sent \(sent) bytes while the reader took \(received)")
        XCTAssertLessThan(sent, length / 4)
        while let chunk = try await iterator.next() {
            XCTAssertEqual(chunk, fixture.bytes(received..<(received + Int64(chunk.count))))
            received += Int64(chunk.count)
        }
        XCTAssertEqual(received, length, "held back, not cut short")
    }

    func testBodiesArriveInLargeChunks() async throws {
        let length: Int64 = 16 << 20
        let fixture = try makeFixture(length: length)
        let response = try await fixture.makeHTTPOrigin().read(OriginReadRequest(url: fixture.url, range: 0..<length))
        var largest = 0
        var received = 0
        for try await chunk in response.body {
            largest = max(largest, chunk.count)
            received += chunk.count
        }
        XCTAssertEqual(received, Int(length))
        // URLSession on Linux hands over at most 16 KiB at a time, which caps its throughput.
        XCTAssertGreaterThan(largest, 16 * 1024)
    }

    func testRequestsAfterShutdownFail() async throws {
        let fixture = try makeFixture(length: 1000)
        let transport = AsyncHTTPClientTransport()
        let origin = HTTPOrigin(transport: transport)
        _ = try await origin.contentInfo(for: fixture.url)
        await transport.shutdown()
        do {
            _ = try await origin.contentInfo(for: fixture.url)
            XCTFail("a shut-down transport must not send")
        } catch SpoolError.network {}
        await transport.shutdown()  // a second shutdown is harmless
    }

    func testReleasedWithoutShutdownTheClientStillStops() async throws {
        let fixture = try makeFixture(length: 100_000)
        do {
            // AsyncHTTPClient traps in debug builds when a running client is released: the transport must
            // shut its client down itself.
            let origin = HTTPOrigin(transport: AsyncHTTPClientTransport())
            let response = try await origin.read(OriginReadRequest(url: fixture.url, range: 0..<100_000))
            let body = try await collect(response.body)
            XCTAssertEqual(body, fixture.bytes(0..<100_000))
        }
        let closed = await eventually { fixture.origin.openConnectionCount == 0 }
        XCTAssertTrue(closed, "the released client's connections close")
    }
}
