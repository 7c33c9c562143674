import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// Common Media Client Data end to end, read from nginx's log: a player's CMCD reaches the origin requests
/// that serve it (without the keys of its next request), Spool's own requests ahead of playback say why they
/// run, and the policy's transmission, exclusions and switch are followed.
final class ClientDataThroughProxyTests: XCTestCase {
    private static let length: Int64 = 600_000

    /// The CMCD fields of the origin's requests for `name`.
    private func originFields(_ fixture: ProxyFixture, _ name: String) throws -> [[String: String]] {
        try fixture.nginx.accessLog().filter { $0.path.contains("/\(name)") }.map(\.clientDataFields)
    }

    func testAPlayersDataReachesTheOriginWithoutItsNextRequestsKeys() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("q.mp4", length: Self.length, seed: 1)
        try fixture.serveGenerated("h.mp4", length: Self.length, seed: 2)
        // As a query item (hls.js, Shaka): sent on as header fields, the origin's URL left alone.
        let query = "br=3200,nrr=\"12323-48763\",ot=v,sid=\"6e2fb550\",su"
        let encoded = try XCTUnwrap(query.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let url = try fixture.proxyURL("q.mp4").absoluteString + "?CMCD=" + encoded
        let played = try await Curl.run(["-sf", "-o", "/dev/null", url])
        XCTAssertEqual(played.status, 0, played.stderr)
        let fields = try XCTUnwrap(try originFields(fixture, "q.mp4").first)
        XCTAssertEqual(fields["CMCD-Object"], "br=3200,ot=v")
        XCTAssertEqual(fields["CMCD-Session"], "sid=\"6e2fb550\"")
        XCTAssertEqual(fields["CMCD-Request"], "su", "the player's next range is the cache's business")
        XCTAssertFalse(try fixture.nginx.accessLog().contains { $0.path.contains("CMCD") })

        // As header fields (AVPlayer on iOS 18, media3).
        let headers = try await Curl.run([
            "-sf", "-o", "/dev/null", "-H", "CMCD-Session: sid=\"a1\",sf=h", "-H", "CMCD-Status: bs",
            try fixture.proxyURL("h.mp4").absoluteString,
        ])
        XCTAssertEqual(headers.status, 0, headers.stderr)
        let sent = try XCTUnwrap(try originFields(fixture, "h.mp4").first)
        XCTAssertEqual(sent["CMCD-Session"], "sf=h,sid=\"a1\"")
        XCTAssertEqual(sent["CMCD-Status"], "bs")
    }

    func testSpoolsOwnRequestsSayWhyTheyRunWithTheSessionOfThePlayer() async throws {
        let fixture = try await ProxyFixture(test: self)
        for name in ["prefetched.mp4", "pinned.mp4", "preloaded.mp4"] {
            try fixture.serveGenerated(name, length: Self.length, seed: 3)
        }
        // The player read the first bytes with its session id; the rest is prefetched.
        let head = try await Curl.run([
            "-sf", "-o", "/dev/null", "-r", "0-99999", "-H", "CMCD-Session: sid=\"s1\"",
            try fixture.proxyURL("prefetched.mp4").absoluteString,
        ])
        XCTAssertEqual(head.status, 0, head.stderr)
        try await fixture.cache.prefetch(fixture.originURL("prefetched.mp4"))
        let prefetched = try originFields(fixture, "prefetched.mp4")
        XCTAssertEqual(prefetched.count, 2, "\(prefetched)")
        XCTAssertEqual(prefetched.last?["CMCD-Request"], "io.spool-purpose=\"prefetch\"")
        XCTAssertEqual(prefetched.last?["CMCD-Session"], "sid=\"s1\"", "the CDN joins the fill to the viewer")
        XCTAssertEqual(prefetched.last?["CMCD-Object"], "ot=v", "nginx types .mp4 as video/mp4")

        try await fixture.cache.pin(Resource(url: fixture.originURL("pinned.mp4")))
        XCTAssertEqual(try originFields(fixture, "pinned.mp4").first?["CMCD-Request"], "io.spool-purpose=\"download\"")

        let preloader = SpoolPreloader(
            cache: fixture.cache,
            configuration: PreloadConfiguration(target: .bytes(100_000), waitsForCurrentItem: false))
        let events = preloader.events()
        preloader.setItems([PreloadItem(url: fixture.originURL("preloaded.mp4"))], current: 0)
        let loaded = try await holdsAfterEvents(events) {
            if case .loaded = preloader.state(of: fixture.originURL("preloaded.mp4").absoluteString) { return true }
            return false
        }
        XCTAssertTrue(loaded)
        await preloader.stop()
        let preloaded = try originFields(fixture, "preloaded.mp4").first
        XCTAssertEqual(preloaded?["CMCD-Request"], "io.spool-purpose=\"preload\"")
        XCTAssertEqual(preloaded?["CMCD-Session"], "sta=d,v=2", "version 2's preloading state")
    }

    func testThePolicyPicksTheTransmissionDropsKeysAndTurnsItOff() async throws {
        let query = try await ProxyFixture(
            test: self, clientData: ClientDataPolicy(transmission: .query, excludedKeys: ["sid"]))
        try query.serveGenerated("a.mp4", length: Self.length, seed: 4)
        let played = try await Curl.run([
            "-sf", "-o", "/dev/null", "-H", "CMCD-Session: sid=\"s2\",cid=\"film\"", "-H", "CMCD-Object: br=800",
            try query.proxyURL("a.mp4").absoluteString,
        ])
        XCTAssertEqual(played.status, 0, played.stderr)
        let entry = try XCTUnwrap(try query.nginx.accessLog().first { $0.path.contains("/a.mp4") })
        XCTAssertTrue(entry.clientDataFields.isEmpty, "\(entry.clientDataFields)")
        XCTAssertTrue(entry.path.hasSuffix("/a.mp4?CMCD=br%3D800%2Ccid%3D%22film%22"), entry.path)

        let off = try await ProxyFixture(test: self, clientData: .off)
        try off.serveGenerated("b.mp4", length: Self.length, seed: 5)
        let quiet = try await Curl.run([
            "-sf", "-o", "/dev/null", "-H", "CMCD-Session: sid=\"s3\"", try off.proxyURL("b.mp4").absoluteString,
        ])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        try await off.cache.prefetch(off.originURL("b.mp4"))
        XCTAssertEqual(try off.nginx.accessLog().filter { !$0.clientDataFields.isEmpty }.count, 0)
    }
}
