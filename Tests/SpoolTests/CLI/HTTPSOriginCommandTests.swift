import Foundation
import Spool
import SpoolTesting
import XCTest

/// `spool get` from an HTTPS origin whose certificate a private authority signed: refused until that
/// authority is trusted with `--ca-file`, then the bytes, with nothing cached from the refused attempt.
final class HTTPSOriginCommandTests: XCTestCase {
    func testCAFileTrustsAPrivateAuthority() throws {
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("spool-https-\(UUID().uuidString)")
        let cacheDirectory = www.appendingPathComponent("cache", isDirectory: true)
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: www) }
        try TestContent.writeGenerated(seed: 71, length: 300_000, to: www.appendingPathComponent("a.mp3"))
        let authority = try TestCertificateAuthority()
        let nginx = try NginxOrigin(serving: www, tls: NginxTLS(authority: authority, http2: true))
        defer { nginx.stop() }
        var runner = try CommandRunner()
        runner.environment["SPOOL_CACHE_DIR"] = cacheDirectory.path
        let url = nginx.url(for: "a.mp3").absoluteString
        let output = www.appendingPathComponent("out.mp3")

        let refused = try runner.run(["get", url, "-o", output.path])
        XCTAssertNotEqual(refused.status, 0, "a certificate nobody trusts")
        XCTAssertTrue(refused.stderr.lowercased().contains("certificate"), refused.stderr)

        let fetched = try runner.run(["get", url, "-o", output.path, "--ca-file", authority.certificateFile.path])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertEqual(try Data(contentsOf: output), TestContent.generatedBytes(seed: 71, range: 0..<300_000))

        let missing = try runner.run(["get", url, "--ca-file", www.appendingPathComponent("none.pem").path])
        XCTAssertEqual(missing.status, 2, "a usage error, as ArgumentParser exits on one")
        XCTAssertTrue(missing.stderr.contains("no such readable file"), missing.stderr)
    }
}
