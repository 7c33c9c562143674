import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LifecycleTests: XCTestCase {
    func testStopInterruptsThrottledTransferPromptly() throws {
        let origin = try TestOrigin()
        origin.serve(.generated(length: 10_000_000, seed: 2), at: "/slow")
        origin.behaviour.throttleBytesPerSecond = 100_000
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(eventually { origin.bodyBytesSent > 0 })

        // Left alone, the transfer takes 100 s: a client that got less than a tenth of the body saw it cut.
        XCTAssertTrue(returns { origin.stop() })
        XCTAssertLessThan(client.readToEnd().count, 1_000_000)
    }

    func testStopUnblocksWriteToClientThatStoppedReading() throws {
        let origin = try TestOrigin()
        origin.serve(.generated(length: 500_000_000, seed: 2), at: "/huge")
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET /huge HTTP/1.1\r\nHost: x\r\n\r\n")
        // Socket buffers fill and the server blocks in send(); the client never reads, so a stop that waited
        // for the write would never return.
        XCTAssertTrue(eventually { origin.bodyBytesSent > 0 })
        XCTAssertTrue(returns { origin.stop() }, "stop unblocked the write")
    }

    func testConcurrentRangeRequests() async throws {
        let origin = try makeOrigin()
        let length: Int64 = 2_000_000
        origin.serve(.generated(length: length, seed: 11), at: "/c")
        let session = Fetch.session()
        defer { session.finishTasksAndInvalidate() }
        let url = origin.url(for: "/c")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                let start = Int64(index) * 100_000
                group.addTask {
                    let (data, response) = try await Fetch.data(
                        url, headers: ["Range": "bytes=\(start)-\(start + 99_999)"], session: session
                    )
                    XCTAssertEqual(response.statusCode, 206)
                    XCTAssertEqual(data, TestContent.generatedBytes(seed: 11, range: start..<(start + 100_000)))
                }
            }
            try await group.waitForAll()
        }
        XCTAssertTrue(eventually { origin.bodyBytesSent == length })
        XCTAssertEqual(origin.requestCount, 20)
    }

    func testReleasingOriginStopsIt() throws {
        var origin: TestOrigin? = try TestOrigin()
        let port = try XCTUnwrap(origin?.port)
        origin = nil
        XCTAssertThrowsError(try RawHTTPClient(port: port))
    }
}
