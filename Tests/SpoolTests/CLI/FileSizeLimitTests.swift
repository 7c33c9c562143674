import Foundation
import Spool
import SpoolTesting
import XCTest

/// `spool get` under a file size limit (`ulimit -f`): SIGXFSZ is ignored, so cache writes fail with EFBIG
/// instead of killing the process, and the bytes keep coming from the origin.
final class FileSizeLimitTests: XCTestCase {
    func testGetUnderAFileSizeLimitIsNotKilledAndDeliversEveryByte() throws {
        let length: Int64 = 3_000_000
        let fixture = try HTTPFixture(test: self, length: length, seed: 61)
        let expected = fixture.directory.appendingPathComponent("expected.bin")
        try TestContent.writeGenerated(seed: 61, length: length, to: expected)
        let cacheDirectory = fixture.directory.appendingPathComponent("cache", isDirectory: true)
        var environment = ProcessInfo.processInfo.environment
        environment["SPOOL"] = try SpoolExecutable.url().path
        environment["URL"] = fixture.url.absoluteString
        environment["CACHE"] = cacheDirectory.path
        environment["EXPECTED"] = expected.path
        // 1024 KiB per file for spool: its data file hits the limit a third of the way. The bytes go
        // through a pipe (no file, no limit) to cmp, which compares them with the original.
        let script = """
            ulimit -f 1024
            "$SPOOL" get "$URL" --cache "$CACHE" -o - | cmp - "$EXPECTED"
            echo "spool=${PIPESTATUS[0]} cmp=${PIPESTATUS[1]}"
            """
        let result = try ExternalCommand(executable: URL(fileURLWithPath: "/bin/bash"), environment: environment)
            .run(["-c", script], timeout: 60)
        let statuses = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(statuses.contains("spool=\(128 + SIGXFSZ)"), "spool was killed by SIGXFSZ: \(result.stderr)")
        XCTAssertEqual(
            statuses, "spool=0 cmp=0", "every byte arrives although the cache cannot hold it: \(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("spool: warning: ") }
        XCTAssertEqual(warnings.count, 1, "the failing writes are reported once: \(result.stderr)")
        XCTAssertTrue(warnings.first?.contains("cache writes fail") ?? false, result.stderr)

        // Whatever the cache kept is correct; the rest is fetched again, without a limit this time.
        let output = fixture.directory.appendingPathComponent("out.bin")
        let again = try CommandRunner().run([
            "get", fixture.url.absoluteString, "--cache", cacheDirectory.path, "-o", output.path,
        ])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: output.path, andPath: expected.path))
    }
}
