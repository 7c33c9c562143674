import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// `GET /statistics` on the proxy: the cache's counters as JSON, stored hits answered on the event loop
/// included.
final class StatisticsEndpointTests: XCTestCase {
    func testTheProxySendsItsCachesStatistics() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("a.bin", length: 400_000, seed: 9)
        let url = try fixture.proxyURL("a.bin")
        let cold = try await Curl.run(["-o", "/dev/null", url.absoluteString])
        XCTAssertEqual(cold.status, 0, cold.stderr)
        // A stored range: answered from the file on the event loop.
        let warm = try await Curl.run(["-o", "/dev/null", "-r", "0-99999", url.absoluteString])
        XCTAssertEqual(warm.status, 0, warm.stderr)
        let statisticsURL = try XCTUnwrap(fixture.proxy.baseURL).appendingPathComponent("statistics")
        let authorization = ["--header", "Authorization: Bearer \(fixture.proxy.controlToken)"]
        let (status, headers, body) = try await offPool { try Curl.fetch(statisticsURL, authorization) }
        XCTAssertEqual(status, 200)
        XCTAssertEqual(headers["content-type"], "application/json")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        XCTAssertEqual(json["bytesServedFromOrigin"] as? Int, 400_000)
        XCTAssertEqual(json["bytesServedFromCache"] as? Int, 100_000)
        XCTAssertEqual(json["bytesFetched"] as? Int, 400_000)
        XCTAssertEqual(try XCTUnwrap(json["hitRatio"] as? Double), 0.2, accuracy: 1e-9)
        XCTAssertNotNil(json["since"] as? String)
    }
}
