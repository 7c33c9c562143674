import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The benchmark's caching reference: nginx with `proxy_cache` and `slice` in front of an nginx origin.
final class NginxSliceProxyTests: XCTestCase {
    func testServesRangesInWholeSlicesAndAnswersRepeatsFromItsCache() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-slice-root-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let length: Int64 = 3 << 20 + 12345
        try TestContent.writeGenerated(seed: 8, length: length, to: directory.appendingPathComponent("clip.bin"))
        let origin = try NginxOrigin(serving: directory)
        defer { origin.stop() }
        let proxy = try NginxSliceProxy(origin: origin.baseURL)
        defer { proxy.stop() }

        let session = Fetch.session()
        defer { session.finishTasksAndInvalidate() }
        let range: Range<Int64> = 1_000_000..<1_100_000
        let (part, response) = try await Fetch.data(
            proxy.url(for: "clip.bin"), headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound - 1)"],
            session: session)
        XCTAssertEqual(response.statusCode, 206)
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Range"), "bytes 1000000-1099999/\(length)")
        XCTAssertEqual(part, TestContent.generatedBytes(seed: 8, range: range))
        // The range lies in the first two 1 MiB slices; the origin sends both whole.
        let fetched = try origin.accessLog(waitingForEntries: 2).filter { $0.method == "GET" }
        XCTAssertEqual(fetched.compactMap(\.range).sorted(), ["bytes=0-1048575", "bytes=1048576-2097151"])
        XCTAssertEqual(fetched.reduce(0) { $0 + $1.bodyBytesSent }, 2 << 20)

        let (again, _) = try await Fetch.data(
            proxy.url(for: "clip.bin"), headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound - 1)"],
            session: session)
        XCTAssertEqual(again, part)
        try await Task.sleep(nanoseconds: 200_000_000)
        XCTAssertEqual(try origin.accessLog().count, fetched.count, "a repeat comes from the proxy's cache")
        XCTAssertEqual(try proxy.accessLog().count, 2)

        let (whole, full) = try await Fetch.data(proxy.url(for: "clip.bin"), session: session)
        XCTAssertEqual(full.statusCode, 200)
        XCTAssertEqual(Int64(whole.count), length)
        XCTAssertEqual(whole, TestContent.generatedBytes(seed: 8, range: 0..<length))
    }
}
