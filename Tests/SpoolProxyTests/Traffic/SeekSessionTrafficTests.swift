import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// A player's session of seeks, each a "to the end" request abandoned after a few hundred KiB, through the
/// proxy against nginx: the first play costs the origin little more than the bytes played, and playing the
/// same session again costs it nothing.
final class SeekSessionTrafficTests: XCTestCase {
    private static let length: Int64 = 48 * 1024 * 1024
    private static let seed: UInt64 = 31

    /// The probe, the read from the start, then 24 seeks: (offset, bytes played), as in `spool bench`.
    private static let session: [(offset: Int64, played: Int)] = {
        var generator = SeededGenerator(seed: 5)
        let played = 256 * 1024...768 * 1024
        return [(0, Int.random(in: played, using: &generator))]
            + (0..<24).map { _ in
                (
                    Int64.random(in: 0..<(length - 1024 * 1024), using: &generator),
                    Int.random(in: played, using: &generator)
                )
            }
    }()

    func testAReplayedSeekSessionCostsTheOriginNothing() async throws {
        // A generous grace: the test checks the mechanism, not how fast a loaded machine schedules the client.
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(hangUpGrace: 0.5))
        try fixture.serveGenerated("session.bin", length: Self.length, seed: Self.seed)
        let port = try XCTUnwrap(fixture.proxy.baseURL?.port)
        let target = try fixture.proxyURL("session.bin").path

        let played = try await play(port: port, target: target)
        let first = try originBytes(fixture.nginx)
        let replayed = try await play(port: port, target: target)
        let replay = try originBytes(fixture.nginx) - first
        XCTAssertEqual(replayed, played)
        print("[seek session] \(played) bytes played, first play \(first) origin bytes, replay \(replay)")
        XCTAssertEqual(replay, 0, "the replay plays only bytes the first play stored")
        // On loopback a piece is what arrives in a request's cost, up to `requestCostPieceLimit`: a read
        // abandoned at any moment has about half a piece committed beyond its reader, at most one (measured:
        // 78-106 KiB a seek, against 256 KiB pieces).
        XCTAssertLessThanOrEqual(
            first, played + Int64(Self.session.count) * FetchPolicy.requestCostPieceLimit,
            "an abandoned seek costs at most about a piece beyond the bytes it played")
        let ranges = try fixture.nginx.accessLog().compactMap(\.range)
        XCTAssertFalse(ranges.contains { $0.hasSuffix("-") }, "no open-ended origin request: \(ranges)")

        // Reading on past what the session cached still gets every byte, the gaps fetched once.
        let whole = try await Curl.fetch(try fixture.proxyURL("session.bin"), ["--range", "0-"])
        XCTAssertEqual(whole.status, 206)
        XCTAssertEqual(whole.body, TestContent.generatedBytes(seed: Self.seed, range: 0..<Self.length))
        XCTAssertLessThanOrEqual(
            try originBytes(fixture.nginx) - first, Self.length - played,
            "the whole read fetched only what the session had not")
    }

    /// Plays the session, checking every byte; returns the distinct bytes played.
    private func play(port: Int, target: String) async throws -> Int64 {
        let probe = try await CancellingReader.read(port: port, target: target, range: "bytes=0-1", played: 2)
        XCTAssertEqual(probe.status, 206)
        var covered = ByteRangeSet([0..<2])
        for read in Self.session {
            let answer = try await CancellingReader.read(
                port: port, target: target, range: "bytes=\(read.offset)-", played: read.played)
            XCTAssertEqual(answer.status, 206, "bytes=\(read.offset)-")
            let range = read.offset..<(read.offset + Int64(read.played))
            XCTAssertEqual(
                answer.body, TestContent.generatedBytes(seed: Self.seed, range: range), "bytes=\(read.offset)-")
            covered.insert(range)
        }
        return covered.byteCount
    }

    /// Body bytes nginx sent, once its log has been quiet for a moment: it logs a response when it ends, and
    /// the proxy may still be finishing one.
    private func originBytes(_ nginx: NginxOrigin) throws -> Int64 {
        var last = try nginx.totalBodyBytesSent()
        var quietSince = Date()
        while Date().timeIntervalSince(quietSince) < 0.5 {
            Thread.sleep(forTimeInterval: 0.05)
            let now = try nginx.totalBodyBytesSent()
            if now != last { (last, quietSince) = (now, Date()) }
        }
        return last
    }
}
