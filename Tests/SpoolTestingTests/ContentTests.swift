import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ContentTests: XCTestCase {
    func testCountersCountBodyBytesAndReset() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(1000)), at: "/f")
        _ = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        _ = try RawHTTPClient.fetch(port: origin.port, path: "/f", headers: ["Range": "bytes=0-99"])
        _ = try RawHTTPClient.fetch(port: origin.port, method: "HEAD", path: "/f")
        XCTAssertTrue(eventually { origin.bodyBytesSent == 1100 })
        XCTAssertEqual(origin.requestCount, 3)
        XCTAssertEqual(origin.requests.map(\.bodyBytesSent), [1000, 100, 0])
        XCTAssertEqual(origin.requests.map(\.range), [nil, "bytes=0-99", nil])

        origin.resetCounters()
        XCTAssertEqual(origin.requestCount, 0)
        XCTAssertEqual(origin.bodyBytesSent, 0)
        XCTAssertTrue(origin.requests.isEmpty)
    }

    func testReplacingContentChangesEtagAndLastModified() throws {
        let origin = try makeOrigin()
        origin.serve(.data(Data("one".utf8)), at: "/f")
        let first = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        origin.serve(.data(Data("two".utf8)), at: "/f")
        let second = try RawHTTPClient.fetch(port: origin.port, path: "/f")

        XCTAssertEqual(String(decoding: second.body, as: UTF8.self), "two")
        XCTAssertNotEqual(first.header("ETag"), second.header("ETag"))
        XCTAssertNotEqual(first.header("Last-Modified"), second.header("Last-Modified"))
        // A range conditioned on the old version must not be honoured.
        let stale = try RawHTTPClient.fetch(
            port: origin.port, path: "/f", headers: ["Range": "bytes=0-0", "If-Range": first.header("ETag")!]
        )
        XCTAssertEqual(stale.status, 200)
    }

    func testGeneratedBytesAreDeterministicAndPositionAddressable() {
        let whole = TestContent.generatedBytes(seed: 42, range: 0..<10_000)
        XCTAssertEqual(whole, TestContent.generatedBytes(seed: 42, range: 0..<10_000))
        XCTAssertNotEqual(whole, TestContent.generatedBytes(seed: 43, range: 0..<10_000))
        for range: Range<Int64> in [0..<1, 3..<11, 7..<8, 8..<16, 1234..<5678, 9_999..<10_000] {
            let slice = TestContent.generatedBytes(seed: 42, range: range)
            XCTAssertEqual(slice, whole[Int(range.lowerBound)..<Int(range.upperBound)], "\(range)")
        }
        XCTAssertTrue(TestContent.generatedBytes(seed: 42, range: 5..<5).isEmpty)
        let far = TestContent.generatedBytes(seed: 7, range: 1_000_000_000_003..<1_000_000_000_020)
        XCTAssertEqual(far.count, 17)
    }

    func testGeneratedContentIsServedByRange() throws {
        let origin = try makeOrigin()
        let length: Int64 = 1 << 30
        origin.serve(.generated(length: length, seed: 9), at: "/big.bin")
        let response = try RawHTTPClient.fetch(
            port: origin.port, path: "/big.bin", headers: ["Range": "bytes=\(length - 1000)-"]
        )
        XCTAssertEqual(response.status, 206)
        XCTAssertEqual(response.header("Content-Range"), "bytes \(length - 1000)-\(length - 1)/\(length)")
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 9, range: (length - 1000)..<length))
        let head = try RawHTTPClient.fetch(port: origin.port, method: "HEAD", path: "/big.bin")
        XCTAssertEqual(head.header("Content-Length"), "\(length)")
    }

    func testFileContentIsServedWholeAndByRange() async throws {
        let origin = try makeOrigin()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("spool-testing-\(UUID()).bin")
        let length: Int64 = 4 * 1024 * 1024 + 123
        let bytes = TestContent.generatedBytes(seed: 5, range: 0..<length)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        origin.serve(.file(file), at: "/file.bin")

        let (data, response) = try await Fetch.data(origin.url(for: "/file.bin"))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(data, bytes)
        let (part, partial) = try await Fetch.data(
            origin.url(for: "/file.bin"), headers: ["Range": "bytes=1000000-3000000"]
        )
        XCTAssertEqual(partial.statusCode, 206)
        XCTAssertEqual(part, bytes[1_000_000...3_000_000])
        XCTAssertTrue(eventually { origin.bodyBytesSent == length + 2_000_001 })
    }
}
