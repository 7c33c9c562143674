import Foundation
import SpoolTesting
import XCTest

/// `spool bench feed`, end to end in its tiny mode: ffmpeg encodes a feed, nginx serves it, ffmpeg plays it
/// across an emulated link in every way, and the table has a figure in every cell it should.
final class BenchFeedCommandTests: XCTestCase {
    func testTinyFeedPrintsATableWithEveryWayAndGoal() throws {
        try assertTinyFeed(origin: [])
    }

    /// The same feed from an origin that speaks HTTPS and offers HTTP/2, with a certificate of the bench's own
    /// authority that the cache trusts (ffmpeg, the direct player, does not check certificates).
    func testTinyFeedOverHTTPSWithHTTP2() throws {
        try assertTinyFeed(origin: ["--origin", "h2"])
    }

    private func assertTinyFeed(origin: [String]) throws {
        let runner = try CommandRunner()
        let output = try runner.run(["bench", "feed", "--tiny", "--links", "lan"] + origin, timeout: 600)
        XCTAssertEqual(output.status, 0, output.stderr)
        if !origin.isEmpty {
            XCTAssertTrue(output.stdout.contains("origin HTTPS (TLS 1.3), HTTP/2 offered"), output.stdout)
        }
        let lines = output.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("### lan") }, output.stdout)
        let header = "| measure | direct | Spool, no preload | Spool + preload | Spool, all cached | goal | met |"
        XCTAssertTrue(lines.contains { $0.hasPrefix(header) }, output.stdout)
        func cells(_ title: String) throws -> [String] {
            let row = try XCTUnwrap(lines.first { $0.hasPrefix("| \(title) |") }, "no row '\(title)': \(output.stdout)")
            return row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let frames = try cells("first decoded frame of the next items, median")
        XCTAssertEqual(frames.count, 7, "\(frames)")
        for way in frames[1...4] { XCTAssertTrue(way.hasSuffix(" ms"), "\(frames)") }
        XCTAssertEqual(try cells("median ÷ all cached")[5], "preload ≤ 1.20")
        // ffmpeg's own log timed every way's first media response (plain HTTP to the proxy, TLS direct), and
        // each Spool pass's reports were paired with it.
        let logged = try cells("player's log: first media response of the next items, median")
        for way in logged[1...4] { XCTAssertTrue(way.hasSuffix(" ms"), "\(logged)") }
        let differences = try cells("reports vs the player: largest difference in an item's start")
        for way in differences[2...4] { XCTAssertTrue(way.hasSuffix(" ms"), "\(differences)") }
        let twice = try cells("bytes fetched twice")
        XCTAssertEqual(twice[3], "0.00 MB", "the preload pass fetched bytes twice: \(twice)")
        XCTAssertEqual(try cells("bytes from the origin")[4], "0.00 MB", "the cached pass fetched")
        let totals = try cells("preloaded / of them played / wasted")
        XCTAssertTrue(totals[3].contains(" MB / "), "\(totals)")
    }
}
