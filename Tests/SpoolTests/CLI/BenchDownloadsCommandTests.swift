import Foundation
import SpoolTesting
import XCTest

/// `spool bench downloads`, end to end in its tiny mode: nginx serves an album, curl and Spool's download queue
/// fetch it across an emulated link, Spool's downloads are checked byte for byte, and the table has a figure in
/// every cell.
final class BenchDownloadsCommandTests: XCTestCase {
    func testTinyAlbumPrintsATableBesideCurl() throws {
        try assertTinyAlbum(origin: [])
    }

    /// The same album from an origin that speaks HTTPS and offers HTTP/2, with a certificate of the bench's own
    /// authority that both curl and the cache trust.
    func testTinyAlbumOverHTTPSWithHTTP2() throws {
        try assertTinyAlbum(origin: ["--origin", "h2"])
    }

    private func assertTinyAlbum(origin: [String]) throws {
        let runner = try CommandRunner()
        let output = try runner.run(["bench", "downloads", "--tiny", "--links", "lan"] + origin, timeout: 600)
        XCTAssertEqual(output.status, 0, output.stderr)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains { $0.hasPrefix("### lan") }, output.stdout)
        let header =
            "| measure | curl, all in parallel | Spool DownloadQueue, 2 at a time | Spool DownloadQueue, 3 at a time |"
        XCTAssertTrue(lines.contains { $0.hasPrefix(header) }, output.stdout)
        func cells(_ title: String) throws -> [String] {
            let row = try XCTUnwrap(lines.first { $0.hasPrefix("| \(title) |") }, "no row '\(title)': \(output.stdout)")
            return row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for title in ["time to every item", "time to the first whole item"] {
            let times = try cells(title)
            XCTAssertEqual(times.count, 6, "\(times)")
            for way in times[1...3] { XCTAssertTrue(way.hasSuffix(" s"), "\(title): \(times)") }
        }
        let traffic = try cells("link bytes ÷ the items' bytes")
        for way in traffic[1...3] {
            let ratio = try XCTUnwrap(Double(way), "\(traffic)")
            // Headers and, over TLS, records: a little over 1; a byte fetched twice would show.
            XCTAssertGreaterThanOrEqual(ratio, 1, "\(traffic)")
            XCTAssertLessThan(ratio, 1.05, "\(traffic)")
        }
        XCTAssertEqual(traffic[5], "yes", "Spool's link bytes are curl's: \(traffic)")
    }
}
