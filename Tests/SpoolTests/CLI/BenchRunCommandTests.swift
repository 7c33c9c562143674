import Foundation
import SpoolTesting
import XCTest

/// `spool bench run` end to end with its hidden tiny sizes: every scenario runs against real nginx, curl, wrk,
/// ffmpeg and Chromium in seconds (the figures mean nothing at that size), and the table and the JSON both hold every
/// scenario with numbers. The two-minute `--quick` mode is for people, not for CI.
final class BenchRunCommandTests: XCTestCase {
    private let scenarios = [
        "1", "1b", "2a", "2b", "3a", "3b", "3c", "3d", "3e", "3f", "3g", "4", "5a", "5b", "6a", "6b", "7a", "7b", "7c",
        "7d", "8", "10a", "10b",
    ]

    func testTinyRunPrintsEveryScenarioWithNumbersAndWritesTheSameAsJSON() throws {
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("bench.json")
        // No skip when a tool is missing: a skipped harness test must not pass for a working one.
        let result = try CommandRunner().run(["bench", "run", "--tiny", "--json", json.path], timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)

        XCTAssertTrue(result.stdout.contains("Spool ÷ ref"), result.stdout)
        XCTAssertTrue(result.stdout.contains("nginx slice proxy"), result.stdout)
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }
        for id in scenarios {
            guard let row = rows.first(where: { $0.hasPrefix("| \(id) ") }) else {
                XCTFail("no row \(id) in:\n\(result.stdout)")
                continue
            }
            // | id | measure | better | Spool | reference | Spool ÷ ref | goal | met | origin requests | connections |
            // (the last two for the rows that count them: the browser's)
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells.count, 10, String(row))
            XCTAssertEqual(cells[3].first?.isNumber, true, "Spool's figure in \(row)")
            if cells[4] != "—" { XCTAssertTrue(cells[4].contains(where: \.isNumber), "reference figure in \(row)") }
        }

        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        XCTAssertEqual(document["mode"] as? String, "tiny")
        let entries = try XCTUnwrap(document["rows"] as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["id"] as? String }, scenarios)
        for entry in entries {
            let spool = try XCTUnwrap(entry["spool"] as? [String: Any], "\(entry)")
            XCTAssertNotNil(spool["median"] as? Double, "\(entry)")
            XCTAssertFalse((spool["runs"] as? [Double] ?? []).isEmpty, "\(entry)")
            if let reference = entry["reference"] as? [String: Any] {
                XCTAssertNotNil(reference["median"] as? Double, "\(entry)")
                XCTAssertNotNil(reference["name"] as? String, "\(entry)")
            }
        }
        // The browser played the clip directly in one origin request, and through Spool in at least one.
        let browser = try XCTUnwrap(entries.first { $0["id"] as? String == "10a" }?["originCost"] as? [String: Any])
        XCTAssertEqual((browser["reference"] as? [[String: Int]])?.first?["requests"], 1)
        XCTAssertGreaterThan((browser["spool"] as? [[String: Int]])?.first?["requests"] ?? 0, 0)
        // Throughput rows carry both sides and a ratio.
        let warm = try XCTUnwrap(entries.first { $0["id"] as? String == "1" })
        XCTAssertGreaterThan(warm["ratio"] as? Double ?? 0, 0)
        // CPU per GB: both servers' time was measured.
        let cpu = try XCTUnwrap(entries.first { $0["id"] as? String == "1b" })
        XCTAssertGreaterThan(cpu["ratio"] as? Double ?? 0, 0)
    }

    func testTinyLinkRunComparesSpoolWithReadingAcrossTheLinkDirectly() throws {
        try assertTinyLinkRun(origin: [], describedAs: "HTTP/1.1")
    }

    /// The same over HTTPS with HTTP/2 offered: the origin's certificate is from the bench's own authority,
    /// which Spool, the slice proxy and the direct player trust; every row is measured, none fails.
    func testTinyLinkRunOverHTTPSWithHTTP2() throws {
        try assertTinyLinkRun(origin: ["--origin", "h2"], describedAs: "HTTPS (TLS 1.3), HTTP/2 offered")
    }

    private func assertTinyLinkRun(origin: [String], describedAs description: String) throws {
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("link.json")
        let result = try CommandRunner().run(
            ["bench", "run", "--link", "lan", "--tiny", "--json", json.path] + origin, timeout: 300)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(
            result.stdout.contains("spool bench run --link lan --tiny" + origin.map { " " + $0 }.joined()),
            result.stdout)
        XCTAssertTrue(result.stdout.contains("behind the link, \(description);"), result.stdout)
        XCTAssertTrue(
            result.stdout.split(separator: "\n").contains { $0.hasPrefix("| 8 ") && $0.contains("| 0 ") },
            "no measurement failed:\n\(result.stdout)")
        let rows = result.stdout.split(separator: "\n").filter { $0.hasPrefix("| ") }
        for id in ["1", "2a", "2b", "3", "4a", "4b", "5", "6a", "6b", "6c", "7a", "7b", "7c", "8", "9a", "9b"] {
            guard let row = rows.first(where: { $0.hasPrefix("| \(id) ") }) else {
                XCTFail("no row \(id) in:\n\(result.stdout)")
                continue
            }
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells[3].first?.isNumber, true, "Spool's figure in \(row)")
        }
        XCTAssertTrue(
            rows.contains { $0.hasPrefix("| 6c ") && $0.contains("| 0.00 ") },
            "a replayed session crosses the link with nothing")
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        XCTAssertEqual((document["rows"] as? [[String: Any]])?.count, 16)
        // What the origin paid, counted in its access log: the player's full read is one request on one
        // connection, Spool's and the slice proxy's at least one, and Spool's warm read none.
        func cost(_ id: String, _ side: String) -> [[String: Int]]? {
            let row = (document["rows"] as? [[String: Any]])?.first { $0["id"] as? String == id }
            return (row?["originCost"] as? [String: Any])?[side] as? [[String: Int]]
        }
        XCTAssertEqual(cost("5", "reference")?.first, ["requests": 1, "connections": 1])
        XCTAssertGreaterThan(cost("5", "spool")?.first?["requests"] ?? 0, 0)
        XCTAssertGreaterThan(cost("5", "slice")?.first?["requests"] ?? 0, 0)
        XCTAssertEqual(cost("7a", "spool")?.first, ["requests": 0, "connections": 0])
        XCTAssertTrue(result.stdout.contains("origin requests S / ref / slice"), result.stdout)
    }

    func testInvalidOptionsAreUsageErrors() throws {
        let runner = try CommandRunner()
        XCTAssertEqual(try runner.run(["bench", "run", "--runs", "0"]).status, 2)
        XCTAssertEqual(try runner.run(["bench", "run", "--quick", "--tiny"]).status, 2)
        XCTAssertEqual(try runner.run(["bench", "run", "--link", "dial-up"]).status, 2)
        // Options the chosen kind of run would not read.
        let linkWithOnly = try runner.run(["bench", "run", "--link", "lan", "--only", "cold"])
        XCTAssertEqual(linkWithOnly.status, 2)
        XCTAssertTrue(linkWithOnly.stderr.contains("--only"), linkWithOnly.stderr)
        XCTAssertEqual(try runner.run(["bench", "run", "--abandoned-request-grace", "0"]).status, 2)
        XCTAssertEqual(try runner.run(["bench", "run", "--bandwidth-delay-multiple", "2"]).status, 2)
        XCTAssertEqual(try runner.run(["bench", "run", "--origin", "h2"]).status, 2, "--origin needs --link")
        XCTAssertEqual(
            try runner.run(["bench", "run", "--link", "lan", "--tls", "1.2"]).status, 2, "--tls needs an HTTPS origin")
    }
}
