import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class NginxOriginTests: XCTestCase {
    func testServesFileWithRangesAndLogsBodyBytes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-nginx-root-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = TestContent.generatedBytes(seed: 3, range: 0..<300_000)
        try bytes.write(to: directory.appendingPathComponent("clip.bin"))

        // No skip when nginx is missing: .ci/run installs it, and a skipped check must not pass for one.
        let nginx = try NginxOrigin(serving: directory)
        defer { nginx.stop() }

        let session = Fetch.session()
        defer { session.finishTasksAndInvalidate() }
        let (whole, response) = try await Fetch.data(nginx.url(for: "clip.bin"), session: session)
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(whole, bytes)
        XCTAssertNotNil(response.value(forHTTPHeaderField: "ETag"))

        let (part, partial) = try await Fetch.data(
            nginx.url(for: "clip.bin"), headers: ["Range": "bytes=100-199"], session: session
        )
        XCTAssertEqual(partial.statusCode, 206)
        XCTAssertEqual(partial.value(forHTTPHeaderField: "Content-Range"), "bytes 100-199/300000")
        XCTAssertEqual(part, bytes[100..<200])

        let (suffix, _) = try await Fetch.data(
            nginx.url(for: "clip.bin"), headers: ["Range": "bytes=-10"], session: session
        )
        XCTAssertEqual(suffix, bytes[299_990...])

        let log = try nginx.accessLog(waitingForEntries: 3)
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(log.map(\.status), [200, 206, 206])
        XCTAssertEqual(log.map(\.method), ["GET", "GET", "GET"])
        XCTAssertEqual(log.map(\.path), ["/clip.bin", "/clip.bin", "/clip.bin"])
        XCTAssertEqual(log.map(\.range), [nil, "bytes=100-199", "bytes=-10"])
        XCTAssertEqual(try nginx.totalBodyBytesSent(), 300_000 + 100 + 10)

        nginx.stop()
        nginx.stop()
        XCTAssertThrowsError(try RawHTTPClient(port: nginx.port))
    }
}
