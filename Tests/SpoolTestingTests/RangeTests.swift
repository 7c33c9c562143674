import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RangeTests: XCTestCase {
    private func get(_ origin: TestOrigin, _ headers: [String: String]) throws -> RawResponse {
        try RawHTTPClient.fetch(port: origin.port, path: "/f", headers: headers)
    }

    func testClosedOpenAndSuffixRanges() throws {
        let origin = try makeOrigin()
        let body = countingBytes(100)
        origin.serve(.data(body), at: "/f")

        let closed = try get(origin, ["Range": "bytes=10-19"])
        XCTAssertEqual(closed.status, 206)
        XCTAssertEqual(closed.header("Content-Range"), "bytes 10-19/100")
        XCTAssertEqual(closed.header("Content-Length"), "10")
        XCTAssertEqual(closed.body, body[10..<20])

        let open = try get(origin, ["Range": "bytes=90-"])
        XCTAssertEqual(open.header("Content-Range"), "bytes 90-99/100")
        XCTAssertEqual(open.body, body[90..<100])

        let suffix = try get(origin, ["Range": "bytes=-5"])
        XCTAssertEqual(suffix.status, 206)
        XCTAssertEqual(suffix.header("Content-Range"), "bytes 95-99/100")
        XCTAssertEqual(suffix.body, body[95..<100])

        let longSuffix = try get(origin, ["Range": "bytes=-500"])
        XCTAssertEqual(longSuffix.header("Content-Range"), "bytes 0-99/100")

        let clamped = try get(origin, ["Range": "bytes=95-1000"])
        XCTAssertEqual(clamped.header("Content-Range"), "bytes 95-99/100")
        XCTAssertEqual(clamped.body, body[95..<100])
    }

    func testUnsatisfiableRangeIs416() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(100)), at: "/f")
        for range in ["bytes=100-", "bytes=500-600", "bytes=-0"] {
            let response = try get(origin, ["Range": range])
            XCTAssertEqual(response.status, 416, range)
            XCTAssertEqual(response.header("Content-Range"), "bytes */100", range)
            XCTAssertEqual(response.body.count, 0)
        }
    }

    func testMalformedOrMultipleRangesGetFullBody() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(100)), at: "/f")
        for range in ["bytes=5-2", "items=0-5", "bytes=a-b", "bytes=0-1,5-6", "bytes"] {
            let response = try get(origin, ["Range": range])
            XCTAssertEqual(response.status, 200, range)
            XCTAssertEqual(response.body.count, 100, range)
            XCTAssertNil(response.header("Content-Range"), range)
        }
    }

    func testHeadWithRangeReportsPartialHeaders() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(100)), at: "/f")
        let head = try RawHTTPClient.fetch(
            port: origin.port, method: "HEAD", path: "/f", headers: ["Range": "bytes=0-9"])
        XCTAssertEqual(head.status, 206)
        XCTAssertEqual(head.header("Content-Length"), "10")
        XCTAssertEqual(head.header("Content-Range"), "bytes 0-9/100")
        XCTAssertTrue(head.body.isEmpty)
    }

    func testIfRangeMatchingEtagOrDateHonoursRange() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(100)), at: "/f")
        let full = try get(origin, [:])
        let etag = try XCTUnwrap(full.header("ETag"))
        let date = try XCTUnwrap(full.header("Last-Modified"))

        let byTag = try get(origin, ["Range": "bytes=0-9", "If-Range": etag])
        XCTAssertEqual(byTag.status, 206)
        let byDate = try get(origin, ["Range": "bytes=0-9", "If-Range": date])
        XCTAssertEqual(byDate.status, 206)
    }

    func testIfRangeMismatchSendsFullBody() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(100)), at: "/f")
        let etag = try XCTUnwrap(try get(origin, [:]).header("ETag"))
        for validator in ["\"stale\"", "W/\(etag)", "Wed, 01 Jan 2003 00:00:00 GMT"] {
            let response = try get(origin, ["Range": "bytes=0-9", "If-Range": validator])
            XCTAssertEqual(response.status, 200, validator)
            XCTAssertEqual(response.body.count, 100, validator)
        }
    }

    func testUrlSessionRangeRequest() async throws {
        let origin = try makeOrigin()
        let body = countingBytes(4096)
        origin.serve(.data(body), at: "/f")
        let (data, response) = try await Fetch.data(origin.url(for: "/f"), headers: ["Range": "bytes=1000-1999"])
        XCTAssertEqual(response.statusCode, 206)
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Range"), "bytes 1000-1999/4096")
        XCTAssertEqual(data, body[1000..<2000])
    }
}
