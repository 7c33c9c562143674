import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// RFC 9110 behaviour of the proxy, checked with curl against an nginx origin.
final class ProxyHTTPTests: XCTestCase {
    private let length: Int64 = 2 * 1024 * 1024 + 123
    private let seed: UInt64 = 44

    private func expected(_ range: Range<Int64>) -> Data { TestContent.generatedBytes(seed: seed, range: range) }

    func testEveryRangeFormReturnsTheOriginBytes() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let url = try fixture.proxyURL("song.mp3")
        let cases: [(range: String?, status: Int, bytes: Range<Int64>)] = [
            (nil, 200, 0..<length),
            ("0-0", 206, 0..<1),
            ("100-199", 206, 100..<200),
            ("1000000-", 206, 1_000_000..<length),
            ("-500", 206, (length - 500)..<length),
            ("\(length - 1)-\(length - 1)", 206, (length - 1)..<length),
            ("2000000-99999999999", 206, 2_000_000..<length),
            ("-99999999", 206, 0..<length),
        ]
        for item in cases {
            let response = try await Curl.fetch(url, item.range.map { ["--range", $0] } ?? [])
            let label = item.range ?? "none"
            XCTAssertEqual(response.status, item.status, label)
            XCTAssertEqual(response.body, expected(item.bytes), label)
            XCTAssertEqual(response.headers["content-length"], "\(item.bytes.count)", label)
            XCTAssertEqual(response.headers["content-type"], "audio/mpeg", label)
            XCTAssertEqual(response.headers["accept-ranges"], "bytes", label)
            if item.status == 206 {
                XCTAssertEqual(
                    response.headers["content-range"],
                    "bytes \(item.bytes.lowerBound)-\(item.bytes.upperBound - 1)/\(length)", label)
            }
        }
    }

    func testSeveralRangesComeAsMultipartByteranges() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let response = try await Curl.fetch(try fixture.proxyURL("song.mp3"), ["--range", "0-9,1000-1999,-100"])
        XCTAssertEqual(response.status, 206)
        let contentType = try XCTUnwrap(response.headers["content-type"])
        XCTAssertTrue(contentType.hasPrefix("multipart/byteranges; boundary="), contentType)
        let boundary = String(contentType.dropFirst("multipart/byteranges; boundary=".count))
        XCTAssertEqual(response.headers["content-length"], "\(response.body.count)")
        let parts = try MultipartBody.parse(response.body, boundary: boundary)
        let wanted: [Range<Int64>] = [0..<10, 1000..<2000, (length - 100)..<length]
        XCTAssertEqual(parts.count, wanted.count)
        for (part, range) in zip(parts, wanted) {
            XCTAssertEqual(part.headers["content-range"], "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)")
            XCTAssertEqual(part.headers["content-type"], "audio/mpeg")
            XCTAssertEqual(part.body, expected(range))
        }
    }

    func testUnsatisfiableRangeIs416WithTheLength() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let response = try await Curl.fetch(try fixture.proxyURL("song.mp3"), ["--range", "\(length)-"])
        XCTAssertEqual(response.status, 416)
        XCTAssertEqual(response.headers["content-range"], "bytes */\(length)")
        XCTAssertTrue(response.body.isEmpty)
    }

    func testHeadCarriesTheOriginHeadersAndNoBody() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("clip.mp4", length: length, seed: seed)
        let direct = try await Curl.fetch(fixture.originURL("clip.mp4"), ["--head"])
        let head = try await Curl.fetch(try fixture.proxyURL("clip.mp4"), ["--head"])
        XCTAssertEqual(head.status, 200)
        // With --head curl prints the header block on standard output; nothing may follow it (the Date field
        // comes last, added just above the encoder).
        let block = String(decoding: head.body, as: UTF8.self)
        XCTAssertTrue(block.contains("Content-Length: \(length)\r\nX-Spool-Cache: miss\r\n"), block)
        XCTAssertNotNil(block.range(of: #"\r\nDate: [^\r]+ GMT\r\n\r\n$"#, options: .regularExpression), block)
        XCTAssertEqual(head.headers["content-length"], "\(length)")
        XCTAssertEqual(head.headers["content-type"], "video/mp4")
        XCTAssertEqual(head.headers["etag"], direct.headers["etag"])
        XCTAssertEqual(head.headers["last-modified"], direct.headers["last-modified"])
        XCTAssertEqual(head.headers["accept-ranges"], "bytes")
        let ranged = try await Curl.fetch(try fixture.proxyURL("clip.mp4"), ["--head", "--range", "10-19"])
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.headers["content-range"], "bytes 10-19/\(length)")
        XCTAssertEqual(ranged.headers["content-length"], "10")
    }

    func testIfRangeServesTheRangeOnlyForTheCurrentVersion() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let url = try fixture.proxyURL("song.mp3")
        let probe = try await Curl.fetch(url, ["--head"])
        let etag = try XCTUnwrap(probe.headers["etag"])
        let current = try await Curl.fetch(url, ["--range", "10-19", "--header", "If-Range: \(etag)"])
        XCTAssertEqual(current.status, 206)
        XCTAssertEqual(current.body, expected(10..<20))
        let stale = try await Curl.fetch(url, ["--range", "10-19", "--header", "If-Range: \"stale\""])
        XCTAssertEqual(stale.status, 200)
        XCTAssertEqual(stale.body, expected(0..<length))
        let notModified = try await Curl.fetch(url, ["--header", "If-None-Match: \(etag)"])
        XCTAssertEqual(notModified.status, 304)
        XCTAssertTrue(notModified.body.isEmpty)
    }

    func testRequestsShareOneKeepAliveConnection() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let url = try fixture.proxyURL("song.mp3").absoluteString
        let output = try await Curl.run([
            "--write-out", "%{num_connects} %{http_code}\\n", "--range", "0-99", "-o", "/dev/null", url,
            "--next", "--write-out", "%{num_connects} %{http_code}\\n", "--range", "-100", "-o", "/dev/null", url,
            "--next", "--write-out", "%{num_connects} %{http_code}\\n", "--head", "-o", "/dev/null", url,
        ])
        XCTAssertEqual(output.status, 0, output.stderr)
        XCTAssertEqual(output.stdoutText.split(separator: "\n"), ["1 206", "0 206", "0 200"])
    }

    func testMalformedRequestsGet400() async throws {
        let fixture = try await ProxyFixture(test: self)
        let port = try XCTUnwrap(fixture.proxy.baseURL?.port)
        let garbage = try await RawHTTP.exchange(port: port, "NOT HTTP AT ALL\r\n\u{1}\u{2}\r\n\r\n")
        XCTAssertTrue(garbage.hasPrefix("HTTP/1.1 400"), garbage)
        // Too short to be a proxy path: 400. Paths of the proxy's shape it never made: 403 (the security tests,
        // ProxyTrustTests, go through every kind).
        for (path, status) in [("/o/x", 400), ("/w/", 400), ("/o/!!!/a.mp3", 403), ("/o/x/y", 403)] {
            let response = try await RawHTTP.exchange(
                port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 \(status)"), "\(path): \(response)")
        }
        let post = try await Curl.fetch(try fixture.proxyURL("x.mp3"), ["--request", "POST"])
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.headers["allow"], "GET, HEAD")
    }

    func testPingAnswersWithoutTouchingTheCacheOrTheOrigin() async throws {
        let fixture = try await ProxyFixture(test: self)
        let ping = try XCTUnwrap(fixture.proxy.baseURL).appendingPathComponent("ping")
        let get = try await Curl.fetch(ping)
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(String(decoding: get.body, as: UTF8.self), "pong\n")
        XCTAssertEqual(get.headers["cache-control"], "no-store")
        let head = try await Curl.fetch(ping, ["--head"])
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-length"], "5")
        let listedEntries1 = await fixture.cache.entries()
        XCTAssertTrue(listedEntries1.isEmpty)
        XCTAssertTrue(try fixture.nginx.accessLog().isEmpty, "the ping is the proxy's own")
        // Only the exact path: anything longer is the control API's, which needs its token.
        let other = try await Curl.fetch(ping.appendingPathComponent("x"))
        XCTAssertEqual(other.status, 401)
    }

    func testAllowedHostsAreEnforced() async throws {
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(allowedHosts: ["media.example.com"]))
        try fixture.serveGenerated("song.mp3", length: 1000, seed: seed)
        let refused = try await Curl.fetch(try fixture.proxyURL("song.mp3"))
        XCTAssertEqual(refused.status, 403)
        let listedEntries2 = await fixture.cache.entries()
        XCTAssertEqual(listedEntries2.count, 0)
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "a refused host must not be contacted")

        let open = try await ProxyFixture(test: self, configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"]))
        try open.serveGenerated("song.mp3", length: 1000, seed: seed)
        let allowed = try await Curl.fetch(try open.proxyURL("song.mp3"))
        XCTAssertEqual(allowed.status, 200)
    }

    /// A player acts on the origin's status (refreshes an expired signed URL on 403, waits on 429 or 503, gives up
    /// on 404): the proxy answers it as the origin did, with `Retry-After` and `WWW-Authenticate`, a one-line
    /// body of its own, and nothing cached; 502 and 504 stay for what is a gateway failure.
    func testOriginStatusesPassThroughAndAreNeverCached() async throws {
        let fixture = try await ProxyFixture(test: self)
        let missing = try await Curl.fetch(try fixture.proxyURL("later.mp3"))
        XCTAssertEqual(missing.status, 404)
        XCTAssertEqual(String(decoding: missing.body, as: UTF8.self), "404 Not Found: the origin answered 404\n")
        try fixture.serveGenerated("later.mp3", length: 5000, seed: seed)
        let found = try await Curl.fetch(try fixture.proxyURL("later.mp3"))
        XCTAssertEqual(found.status, 200)
        XCTAssertEqual(found.body, TestContent.generatedBytes(seed: seed, range: 0..<5000))

        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 5000, seed: 3), at: "/track.mp3", contentType: "audio/mpeg")
        let cases: [(Int, [String: String])] = [
            (403, ["WWW-Authenticate": "Bearer error=\"invalid_token\""]), (401, ["WWW-Authenticate": "Basic"]),
            (410, [:]), (451, [:]), (429, ["Retry-After": "7"]), (503, ["Retry-After": "120"]),
        ]
        for (status, fields) in cases {
            // A host that said 429 or 503 with `Retry-After` gets no request until then (`HostPacing`): those two
            // are hosts of their own.
            let holds = fields["Retry-After"] != nil
            let asked = holds ? try TestOrigin() : origin
            defer { if holds { asked.stop() } }
            asked.serve(.generated(length: 5000, seed: 3), at: "/track.mp3", contentType: "audio/mpeg")
            asked.behaviour.serverErrorStatus = status
            asked.behaviour.serverErrorFields = fields
            let answer = try await Curl.fetch(try fixture.proxy.url(for: asked.url(for: "/track.mp3")))
            XCTAssertEqual(answer.status, status)
            for (name, value) in fields { XCTAssertEqual(answer.headers[name.lowercased()], value, "\(status)") }
            XCTAssertTrue(String(decoding: answer.body, as: UTF8.self).hasSuffix("the origin answered \(status)\n"))
        }
        let entry = await fixture.cache.entry(for: origin.url(for: "/track.mp3"))
        XCTAssertEqual(entry?.cachedBytes ?? 0, 0, "no error body is ever stored")
        origin.behaviour.serverErrorStatus = nil
        let served = try await Curl.fetch(try fixture.proxy.url(for: origin.url(for: "/track.mp3")))
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body, TestContent.generatedBytes(seed: 3, range: 0..<5000))
    }

    func testUnreachableOriginIs502AndSilentOriginIs504() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-proxy-504-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: directory, origin: HTTPOrigin(timeout: 1)))
        let proxy = SpoolProxy(cache: cache)
        try await proxy.start()
        let silent = try await Curl.fetch(try proxy.url(for: URL(string: "http://127.0.0.1:\(listener.port)/a.mp3")!))
        XCTAssertEqual(silent.status, 504, String(decoding: silent.body, as: UTF8.self))
        let closedPort = try SilentListener.unusedPort()
        let refused = try await Curl.fetch(try proxy.url(for: URL(string: "http://127.0.0.1:\(closedPort)/a.mp3")!))
        XCTAssertEqual(refused.status, 502, String(decoding: refused.body, as: UTF8.self))
        await proxy.stop()
        await cache.close()
    }

    func testAClientLeavingDoesNotStopADownloadAnotherNeeds() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let size: Int64 = 3_000_000
        origin.serve(.generated(length: size, seed: seed), at: "/shared.mp3", contentType: "audio/mpeg")
        var behaviour = TestOriginBehaviour()
        // Per response: slow enough that even the few requests the engine runs at once cannot deliver the file
        // within the leaving client's 0.6 s (at 2 MB/s, three in parallel once did, and it left with all of it).
        behaviour.throttleBytesPerSecond = 500_000
        origin.behaviour = behaviour
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-proxy-share-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let proxy = SpoolProxy(cache: cache)
        try await proxy.start()
        let url = try proxy.url(for: origin.url(for: "/shared.mp3"))

        async let leaving = Curl.run(["--max-time", "0.6", "-o", "/dev/null", url.absoluteString])
        async let staying = Curl.fetch(url)
        let left = try await leaving
        let stayed = try await staying
        XCTAssertEqual(left.status, 28, "the leaving client timed out part-way: \(left.stderr)")
        XCTAssertEqual(stayed.status, 200)
        XCTAssertEqual(stayed.body, TestContent.generatedBytes(seed: seed, range: 0..<size))
        // One shared download: the origin sent the file about once, not once per client.
        XCTAssertLessThanOrEqual(Double(origin.bodyBytesSent), Double(size) * 1.05)
        await proxy.stop()
        await cache.close()
    }

    func testASlowClientsFileSliceIsRevokedWhenTheResourceChanges() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 8_000_000, seed: seed), at: "/clip.mp4", contentType: "video/mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "spool-proxy-revoke-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let proxy = SpoolProxy(cache: cache)
        try await proxy.start()
        let url = try proxy.url(for: origin.url(for: "/clip.mp4"))
        let cached = try await Curl.fetch(url, ["--range", "0-5999999"])
        XCTAssertEqual(cached.body, TestContent.generatedBytes(seed: seed, range: 0..<6_000_000))

        // A client that asks for the cached bytes and reads nothing: its first slice waits in the proxy.
        let port = try XCTUnwrap(url.port)
        let stalled = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 30, bufferBytes: 16 * 1024)
        defer { close(stalled) }
        let request = "GET \(url.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nRange: bytes=0-5999999\r\n\r\n"
        XCTAssertEqual(POSIXSocket.sendAll(stalled, Data(request.utf8)), request.utf8.count)
        try await Task.sleep(for: .milliseconds(300))

        // A new version, found by a read of the bytes not cached: the old slice must not block it, and the
        // file must not change under it while it is still being sent.
        origin.serve(.generated(length: 8_000_001, seed: seed + 1), at: "/clip.mp4", contentType: "video/mp4")
        _ = try await Curl.fetch(url, ["--range", "6000000-6999999", "--max-time", "20"])
        let fresh = try await Curl.fetch(url, ["--max-time", "20"])
        XCTAssertEqual(fresh.status, 200)
        XCTAssertEqual(fresh.body, TestContent.generatedBytes(seed: seed + 1, range: 0..<8_000_001))

        // The stalled client got a short body of the old version, never a byte of the new one.
        let received = try await offPool { () -> Data in
            var received = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while received.count < 7_000_000 {
                let count = recv(stalled, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received.append(contentsOf: buffer[0..<count])
            }
            return received
        }
        let headEnd = try XCTUnwrap(received.range(of: Data("\r\n\r\n".utf8))?.upperBound)
        let body = received[headEnd...]
        XCTAssertLessThan(body.count, 6_000_000, "the revoked response breaks off")
        XCTAssertEqual(Data(body), TestContent.generatedBytes(seed: seed, range: 0..<Int64(body.count)))
        await proxy.stop()
        await cache.close()
    }

    func testOfflineEverythingCachedIsServedIncludingHead() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let online = try await Curl.fetch(try fixture.proxyURL("song.mp3"))
        XCTAssertEqual(online.status, 200)
        await fixture.proxy.stop()
        await fixture.cache.close()
        fixture.nginx.stop()

        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: fixture.cacheDirectory))
        let proxy = SpoolProxy(cache: cache)
        try await proxy.start()
        let url = try proxy.url(for: fixture.originURL("song.mp3"))
        let head = try await Curl.fetch(url, ["--head"])
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.headers["content-type"], "audio/mpeg")
        XCTAssertEqual(head.headers["content-length"], "\(length)")
        XCTAssertEqual(head.headers["etag"], online.headers["etag"])
        XCTAssertEqual(head.headers["x-spool-cache"], "hit")
        let whole = try await Curl.fetch(url)
        XCTAssertEqual(whole.body, expected(0..<length))
        let tail = try await Curl.fetch(url, ["--range", "-1000"])
        XCTAssertEqual(tail.body, expected((length - 1000)..<length))
        // Not cached and no origin: a gateway error, not a hang or a crash.
        let absent = try await Curl.fetch(try proxy.url(for: fixture.originURL("other.mp3")))
        XCTAssertEqual(absent.status, 502)
        await proxy.stop()
        await cache.close()
    }
}
