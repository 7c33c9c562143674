import Foundation
import Spool
import XCTest

@testable import SpoolProxy

final class ProxyTargetMemoTests: XCTestCase {
    private let mapping = ProxyURLMapping(host: "127.0.0.1", port: 8080, key: ProxyURLKey())

    private func target(of origin: String) throws -> String {
        let proxied = try mapping.proxyURL(for: try XCTUnwrap(URL(string: origin)))
        return try XCTUnwrap(URLComponents(url: proxied, resolvingAgainstBaseURL: false)?.percentEncodedPath)
    }

    func testTargetsMapAsTheMappingDoesAcrossAFullMemo() throws {
        let origins = (0..<10).map { "https://user:pw@cdn\($0 % 3).example.com/a/song\($0).mp3?token=t\($0)&q=\($0)" }
        let targets = try origins.map(target(of:)) + ["http://127.0.0.1:8080" + (try target(of: origins[0]))]
        // Three rounds through more targets than the memo holds: hits, misses and restarts all map the same.
        let memo = ProxyTargetMemo(signer: mapping.signer, capacity: 3)
        for _ in 0..<3 {
            for target in targets {
                let expected = try ProxyURLMapping.originURL(forRequestTarget: target, signer: mapping.signer)
                let mapped = try memo.mapping(of: target)
                XCTAssertEqual(mapped.origin, expected, target)
                XCTAssertEqual(mapped.displayURL, CacheKeyPolicy.displayURL(for: expected), target)
                XCTAssertFalse(mapped.displayURL.contains("token"), mapped.displayURL)
            }
        }
    }

    func testATargetThatFailsFailsEveryTime() {
        let memo = ProxyTargetMemo(signer: mapping.signer)
        let file = "file:///etc/passwd"
        let encodedFile = ProxyURLMapping.base64URL(file)
        let signedFile = "/o/\(mapping.signer.proof(for: Substring(encodedFile), kind: "o"))/\(encodedFile)/passwd"
        let forged = try? target(of: "https://cdn.example.com/a.mp3").replacingOccurrences(of: "/o/", with: "/w/")
        for target in ["/o/!!!/x.mp3", signedFile, forged ?? "/w/"] {
            for _ in 0..<2 {
                XCTAssertThrowsError(try memo.mapping(of: target), target)
            }
        }
    }
}
