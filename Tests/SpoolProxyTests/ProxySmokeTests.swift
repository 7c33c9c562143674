import Foundation
import SpoolTesting
import XCTest

final class ProxySmokeTests: XCTestCase {
    func testWholeFileThroughProxyMatchesOrigin() async throws {
        let fixture = try await ProxyFixture(test: self)
        let file = try fixture.serveGenerated("song.mp3", length: 1_000_000, seed: 1)
        let response = try Curl.fetch(try fixture.proxyURL("song.mp3"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, try Data(contentsOf: file))
    }
}
