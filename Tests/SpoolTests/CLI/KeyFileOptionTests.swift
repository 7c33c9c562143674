import Foundation
import Spool
import SpoolTesting
import XCTest

/// `--key-file`: 32 raw bytes or 64 hex characters, refused otherwise by every command that opens the cache;
/// with a key nothing on disk is plaintext media, and a wrong key is one warning and a refetch.
final class KeyFileOptionTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = try makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func keyFile(_ contents: Data, _ name: String = UUID().uuidString) throws -> String {
        let url = scratch.appendingPathComponent(name)
        try contents.write(to: url)
        return url.path
    }

    private static let hex = "00112233445566778899aabbccddeeff0123456789abcdef0f1e2d3c4b5a6978"

    func testThirtyTwoRawBytesOrSixtyFourHexCharactersAreAccepted() throws {
        let runner = try CommandRunner()
        let cache = ["--cache", scratch.appendingPathComponent("cache").path]
        let valid: [Data] = [
            Data((0..<32).map { UInt8($0 * 7 % 256) }),
            Data((0..<32).map { _ in UInt8(ascii: "\n") }),
            Data(Self.hex.utf8),
            Data((Self.hex + "\n").utf8),
            Data((" \t" + Self.hex.uppercased() + "\r\n\n").utf8),
        ]
        for contents in valid {
            let result = try runner.run(["ls", "--key-file", try keyFile(contents)] + cache)
            XCTAssertEqual(result.status, 0, "\(contents.count) bytes: \(result.stderr)")
        }
    }

    func testAnythingElseIsAUsageErrorOfEveryCacheCommand() throws {
        let fixture = try HTTPFixture(test: self, length: 1000)
        let runner = try CommandRunner()
        let invalid: [(String, Data)] = [
            ("31 raw bytes", Data(repeating: 0xAB, count: 31)),
            ("33 raw bytes", Data(repeating: 0xAB, count: 33)),
            ("63 hex characters", Data(Self.hex.dropLast().utf8)),
            ("65 hex characters", Data((Self.hex + "0").utf8)),
            ("64 characters, one not hex", Data((Self.hex.dropLast() + "g").utf8)),
            ("hex with a space inside", Data((Self.hex.prefix(32) + " " + Self.hex.suffix(32)).utf8)),
            ("an empty file", Data()),
            ("a passphrase", Data("correct horse battery staple\n".utf8)),
        ]
        for (label, contents) in invalid {
            let path = try keyFile(contents)
            let result = try runner.run(["ls", "--key-file", path, "--cache", fixture.directory.path])
            XCTAssertEqual(result.status, 2, label)
            XCTAssertTrue(result.stderr.contains("key file \(path)"), "\(label): \(result.stderr)")
            XCTAssertTrue(
                result.stderr.contains("32-byte key") && result.stderr.contains("64 hexadecimal"), result.stderr)
        }
        let missing = try runner.run([
            "ls", "--key-file", scratch.appendingPathComponent("absent").path, "--cache", fixture.directory.path,
        ])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot read key file"), missing.stderr)
        let directory = try runner.run(["ls", "--key-file", scratch.path, "--cache", fixture.directory.path])
        XCTAssertEqual(directory.status, 2, directory.stderr)

        let bad = try keyFile(Data("not a key".utf8))
        let url = fixture.url.absoluteString
        let commands: [[String]] = [
            ["get", url], ["info", url], ["ls"], ["rm", url], ["clear"], ["pin", url], ["unpin", url], ["serve"],
        ]
        for command in commands {
            let result = try runner.run(command + ["--key-file", bad, "--cache", fixture.directory.path], timeout: 20)
            XCTAssertEqual(result.status, 2, "\(command[0]) refuses a bad key file: \(result.stderr)")
        }
        XCTAssertEqual(fixture.origin.requestCount, 0, "nothing reached the origin")
    }

    /// Waits for the engine's encryption.
    func testEncryptedCacheHoldsNoPlaintextAndAWrongKeyIsOneWarningAndARefetch() throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000, seed: 41)
        let runner = try CommandRunner()
        let cache = ["--cache", fixture.directory.path]
        let first = try keyFile(Data(repeating: 0x11, count: 32))
        let second = try keyFile(Data((String(repeating: "22", count: 32) + "\n").utf8))

        let get = try runner.run(["get", fixture.url.absoluteString, "--key-file", first] + cache)
        XCTAssertEqual(get.status, 0, get.stderr)
        for offset in stride(from: Int64(0), to: 2_000_000, by: 250_000) {
            let needle = fixture.bytes((offset + 1000)..<(offset + 1032))
            for file in filesUnder(fixture.directory) {
                XCTAssertNil(
                    try Data(contentsOf: file).range(of: needle),
                    "plaintext media bytes at \(offset) found in \(file.lastPathComponent)")
            }
        }

        let output = scratch.appendingPathComponent("out.bin")
        let wrong = try runner.run(
            ["get", fixture.url.absoluteString, "-o", output.path, "--key-file", second] + cache)
        XCTAssertEqual(wrong.status, 0, wrong.stderr)
        XCTAssertTrue(try Data(contentsOf: output) == fixture.bytes(0..<2_000_000), "correct bytes, never garbage")
        let warnings = wrong.stderr.split(separator: "\n").filter { $0.hasPrefix("spool: warning: ") }
        XCTAssertEqual(warnings.count, 1, "one warning line for the wrong key: \(wrong.stderr)")
        XCTAssertTrue(warnings.first?.contains("encryption key") ?? false, wrong.stderr)

        let again = try runner.run(["get", fixture.url.absoluteString, "--key-file", second] + cache)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("0 B from the origin"), "refetched under the new key: \(again.stderr)")
        XCTAssertFalse(again.stderr.contains("warning"), again.stderr)
    }
}
