import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy played against as an attacker on the same machine would (another app on the device, a web page
/// that rebound its host name to 127.0.0.1), with real sockets: it serves the URLs its app made and nothing
/// else, answers only requests addressed to itself, and keeps its control API for the holder of its token.
final class ProxyTrustTests: XCTestCase {
    private let seed: UInt64 = 42
    private let length: Int64 = 300_000

    /// A request `Host` header that names another server (DNS rebinding) is refused with 421 before anything is
    /// read or fetched, the control API included, even with the right token; the proxy's own names pass.
    func testARequestNotAddressedToTheProxyIsRefusedBeforeAnythingElse() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let url = try fixture.proxyURL("song.mp3")
        let port = try XCTUnwrap(url.port)
        let target = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        let bearer = "Authorization: Bearer \(fixture.proxy.controlToken)"

        let refused: [(String, String, Int)] = [
            ("rebound", "GET \(target) HTTP/1.1\r\nHost: evil.example:\(port)\r\n", 421),
            ("rebound, no port", "GET \(target) HTTP/1.1\r\nHost: evil.example\r\n", 421),
            ("another port", "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port + 1)\r\n", 421),
            ("no Host", "GET \(target) HTTP/1.1\r\n", 400),
            ("two Hosts", "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nHost: evil.example\r\n", 400),
            (
                "absolute form naming another server",
                "GET http://evil.example:\(port)\(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n", 421
            ),
            ("statistics, rebound", "GET /statistics HTTP/1.1\r\nHost: evil.example:\(port)\r\n\(bearer)\r\n", 421),
            (
                "a download, rebound",
                "PUT /downloads HTTP/1.1\r\nHost: attacker.example\r\n\(bearer)\r\nContent-Length: 2\r\n\r\n{}", 421
            ),
        ]
        for (label, request, status) in refused {
            let response = try await RawHTTP.exchange(port: port, request + "Connection: close\r\n\r\n")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 \(status)"), "\(label): \(response)")
            XCTAssertFalse(response.lowercased().contains("access-control-allow"), label)
            XCTAssertLessThan(response.utf8.count, 600, "\(label): a one-line refusal, no media")
        }
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "no origin request for a refused one")
        let entries = await fixture.cache.entries()
        XCTAssertTrue(entries.isEmpty, "nothing opened in the cache")

        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] {
            let response = try await RawHTTP.exchange(
                port: port, "GET \(target) HTTP/1.1\r\nHost: \(host)\r\nRange: bytes=0-9\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 206"), "\(host): \(response)")
            XCTAssertFalse(response.lowercased().contains("access-control-allow"), host)
        }
        // A browser's preflight gets no permission either.
        let preflight = try await RawHTTP.exchange(
            port: port,
            "OPTIONS \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://evil.example\r\n"
                + "Access-Control-Request-Method: GET\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(preflight.hasPrefix("HTTP/1.1 405"), preflight)
        XCTAssertFalse(preflight.lowercased().contains("access-control-allow"), preflight)
    }

    /// The statistics, the preload and download APIs and any other control path answer `401` without the
    /// token, change nothing and read no body; with it they work. The ping stays open, and proves the proxy only
    /// to whoever sends a challenge.
    func testTheControlAPIAnswersOnlyItsTokensHolder() async throws {
        let conditions = SettableConditions(availableDiskBytes: 1 << 40)
        let fixture = try await ProxyFixture(test: self, downloadConditions: conditions)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let base = try XCTUnwrap(fixture.proxy.baseURL).absoluteString
        let item = try ControlAPI.text(["items": [["url": fixture.originURL("song.mp3").absoluteString, "id": "a"]]])
        let withoutToken: [(String, String, [String])] = [
            ("GET", "/statistics", []),
            ("PUT", "/preload", ["--data-binary", item]),
            ("PUT", "/downloads", ["--data-binary", item]),
            ("DELETE", "/downloads?id=a", []),
            ("GET", "/anything-added-later", []),
            ("GET", "/statistics", ["--header", "Authorization: Bearer wrong"]),
            ("GET", "/statistics", ["--header", "Authorization: Basic \(fixture.proxy.controlToken)"]),
            ("GET", "/statistics", ["--header", "Authorization: Bearer \(fixture.proxy.controlToken.dropLast())"]),
        ]
        for (method, path, extra) in withoutToken {
            let answer = try await Curl.fetch(try XCTUnwrap(URL(string: base + path)), ["--request", method] + extra)
            XCTAssertEqual(answer.status, 401, "\(method) \(path) \(extra)")
            XCTAssertEqual(answer.headers["www-authenticate"], "Bearer realm=\"spool\"")
            XCTAssertFalse(String(decoding: answer.body, as: UTF8.self).contains("bytesServed"))
        }
        XCTAssertEqual(fixture.downloads?.items.count, 0, "no download queued")
        let feed = try await ControlAPI.call(fixture, "GET", SpoolProxy.preloadPath)
        XCTAssertEqual(feed.status, 200)
        let feedItems = (try JSONSerialization.jsonObject(with: feed.body) as? [String: Any])?["items"] as? [Any]
        XCTAssertEqual(feedItems?.count, 0, feed.text)
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "nothing fetched for a refused caller")

        let statistics = try await ControlAPI.call(fixture, "GET", SpoolProxy.statisticsPath)
        XCTAssertEqual(statistics.status, 200)
        XCTAssertTrue(statistics.text.contains("bytesServed"), statistics.text)

        let ping = try await Curl.fetch(try XCTUnwrap(URL(string: base + SpoolProxy.pingPath)))
        XCTAssertEqual(ping.status, 200)
        XCTAssertNil(ping.headers["x-spool-proof"], "no proof without a challenge")
        var proofs: Set<String> = []
        for challenge in ["one", "two"] {
            let answer = try await Curl.fetch(
                try XCTUnwrap(URL(string: base + SpoolProxy.pingPath)), ["--header", "X-Spool-Challenge: \(challenge)"])
            proofs.insert(try XCTUnwrap(answer.headers["x-spool-proof"]))
        }
        XCTAssertEqual(proofs.count, 2, "each challenge its own proof: none can be replayed")
    }

    /// Only URLs this proxy made are served: another origin under a URL's proof, a proof changed, cut short, moved
    /// to another kind of path or made by another proxy (another launch) gets 403 before any origin request or
    /// disk read, never naming the proof in the log. The same key, kept by the app, serves URLs across launches.
    func testOnlyURLsTheProxyMadeAreServed() async throws {
        let records = LockedBox<[ProxyLogRecord]>([])
        let key = ProxyURLKey()
        var configuration = ProxyConfiguration(urlKey: key)
        configuration.log = { record in records.withLock { $0.append(record) } }
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        try fixture.serveGenerated("secret.mp3", length: 1000, seed: seed + 1)
        let url = try fixture.proxyURL("song.mp3")
        let port = try XCTUnwrap(url.port)
        let target = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        let parts = target.split(separator: "/").map(String.init)
        XCTAssertEqual(parts.count, 4, target)
        let (proof, encoded) = (parts[1], parts[2])
        let secretEncoded = Self.base64URL(fixture.originURL("secret.mp3").absoluteString)
        let another = ProxyURLMapping(host: "127.0.0.1", port: port, key: ProxyURLKey())
        let anotherTarget = try XCTUnwrap(
            URLComponents(
                url: try another.proxyURL(for: fixture.originURL("secret.mp3")), resolvingAgainstBaseURL: false)?
                .percentEncodedPath)

        let forged = [
            "/o/\(proof)/\(secretEncoded)/secret.mp3",
            "/o/\(proof.dropLast())/\(encoded)/song.mp3",
            "/o/\(String(proof.reversed()))/\(encoded)/song.mp3",
            "/w/\(proof)/\(encoded)/song.mp3",
            "/k/\(proof)/\(encoded)/song.mp3",
            "/o/\(encoded)/song.mp3",
            anotherTarget,
        ]
        for path in forged {
            let response = try await RawHTTP.exchange(
                port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 403"), "\(path): \(response)")
        }
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "no origin request for a URL the proxy did not make")
        let entries = await fixture.cache.entries()
        XCTAssertTrue(entries.isEmpty, "no entry opened for one")

        let served = try await Curl.fetch(url)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body, TestContent.generatedBytes(seed: seed, range: 0..<length))
        let logged = records.withLock { $0.map(\.description) }.joined(separator: "\n")
        XCTAssertFalse(logged.contains(proof), logged)
        XCTAssertFalse(logged.contains(String(proof.prefix(12))), logged)
        XCTAssertFalse(logged.contains(fixture.proxy.controlToken), logged)

        // Another launch: a new proxy on the same cache. With a new key the old URL is refused, even for bytes
        // on disk; with the app's kept key it plays from the cache.
        await fixture.proxy.stop()
        for (kept, status) in [(false, 403), (true, 200)] {
            let relaunched = SpoolProxy(
                cache: fixture.cache, configuration: ProxyConfiguration(urlKey: kept ? key : nil))
            let relaunchedBase = try await relaunched.start()
            let old = try XCTUnwrap(URL(string: relaunchedBase.absoluteString + target))
            let answer = try await Curl.fetch(old)
            XCTAssertEqual(answer.status, status, "key kept: \(kept)")
            if kept { XCTAssertEqual(answer.headers["x-spool-cache"], "hit") }
            await relaunched.stop()
        }
        let fetched = try fixture.nginx.accessLog().map(\.path)
        XCTAssertFalse(fetched.isEmpty)
        XCTAssertTrue(fetched.allSatisfy { $0 == "/song.mp3" }, "the one play fetched, nothing else did: \(fetched)")
    }

    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
