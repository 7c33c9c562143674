import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy shared on a local network, as for an AirPlay receiver, tested from a second host (a network
/// namespace over a veth link): served with the token, refused without it or with another, never able to
/// name an origin the proxy did not share or outside `allowedHosts`, nor to reach the control API, refused
/// under another host name (DNS rebinding), and gone when sharing stops.
final class LocalNetworkSharingTests: XCTestCase {
    private var origin: TestOrigin!
    private var elsewhere: TestOrigin!
    private var cache: SpoolCache!
    private var proxy: SpoolProxy!
    private var directory: URL!

    override func setUp() async throws {
        origin = try TestOrigin()
        elsewhere = try TestOrigin()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-share-\(UUID().uuidString)")
        cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        proxy = SpoolProxy(cache: cache, configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"]))
        try await proxy.start()
    }

    override func tearDown() async throws {
        await proxy.stop()
        await cache.close()
        origin.stop()
        elsewhere.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func testAnotherHostIsServedWithTheTokenAndRefusedWithoutIt() async throws {
        let receiver = try NetworkNamespace(test: self)
        origin.serve(.generated(length: 500_000, seed: 7), at: "/movie.mp4", contentType: "video/mp4")
        let shared = try await proxy.shareOnLocalNetwork(address: receiver.hostAddress)
        XCTAssertEqual(shared.host, receiver.hostAddress)
        let token = try XCTUnwrap(shared.path.split(separator: "/").last)
        XCTAssertEqual(shared.path, "/s/\(token)")
        XCTAssertGreaterThanOrEqual(token.count, 22, "128 random bits")

        // With the token: the bytes, through the cache.
        let url = try proxy.sharedURL(for: origin.url(for: "/movie.mp4"))
        XCTAssertTrue(url.absoluteString.hasPrefix(shared.absoluteString + "/o/"))
        let served = try await receiver.fetch(url.absoluteString)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body, TestContent.generatedBytes(seed: 7, range: 0..<500_000))

        // Without it, or with another: refused, and the origin asked for nothing more.
        let requestsBefore = origin.requestCount
        let withoutToken = url.absoluteString.replacingOccurrences(of: "/s/\(token)", with: "")
        let guessed = url.absoluteString.replacingOccurrences(
            of: String(token), with: String(repeating: "A", count: 22))
        let truncated = url.absoluteString.replacingOccurrences(of: String(token), with: String(token.dropLast()))
        for attempt in [withoutToken, guessed, truncated, "http://\(receiver.hostAddress):\(shared.port!)/ping"] {
            let refused = try await receiver.fetch(attempt)
            XCTAssertEqual(refused.status, 403, attempt)
            XCTAssertFalse(refused.body.count > 100, "a one-line refusal, no media: \(attempt)")
        }
        XCTAssertEqual(origin.requestCount, requestsBefore)

        // The token reaches media only: neither the control API nor another method.
        for (method, path) in [
            ("GET", SpoolProxy.statisticsPath), ("PUT", SpoolProxy.preloadPath), ("DELETE", "/preload"),
        ] {
            let refused = try await receiver.fetch(shared.absoluteString + path, method: method)
            XCTAssertEqual(refused.status, 403, "\(method) \(path)")
        }
        let put = try await receiver.fetch(url.absoluteString, method: "PUT")
        XCTAssertEqual(put.status, 405)
        let ping = try await receiver.fetch(shared.absoluteString + SpoolProxy.pingPath)
        XCTAssertEqual(ping.status, 200)
        // Under another name for the same address (a page that rebound its host to it): refused.
        let rebound = try await receiver.fetch(url.absoluteString, headers: ["Host: evil.example:\(shared.port!)"])
        XCTAssertEqual(rebound.status, 421)
        XCTAssertEqual(origin.requestCount, requestsBefore)
    }

    func testATokenNeverReachesAnOriginOutsideAllowedHosts() async throws {
        let receiver = try NetworkNamespace(test: self)
        elsewhere.serve(.data(Data("secret".utf8)), at: "/secret", contentType: "text/plain")
        try await proxy.shareOnLocalNetwork(address: receiver.hostAddress)
        // `localhost` is the same machine under a name allowedHosts does not list; the receiver's own address
        // is another host again.
        let targets = [
            URL(string: "http://localhost:\(elsewhere.port)/secret")!,
            URL(string: "http://\(receiver.peerAddress):\(elsewhere.port)/secret")!,
        ]
        for target in targets {
            let refused = try await receiver.fetch(try proxy.sharedURL(for: target).absoluteString)
            XCTAssertEqual(refused.status, 403, target.absoluteString)
        }
        XCTAssertEqual(elsewhere.requestCount, 0, "no request left the proxy")
    }

    func testASharedPlaylistNamesItsSegmentsWithTheToken() async throws {
        let receiver = try NetworkNamespace(test: self)
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg0.ts\n#EXT-X-ENDLIST\n"
        origin.serve(.data(Data(playlist.utf8)), at: "/hls/index.m3u8", contentType: "application/vnd.apple.mpegurl")
        origin.serve(.generated(length: 200_000, seed: 8), at: "/hls/seg0.ts", contentType: "video/mp2t")
        let shared = try await proxy.shareOnLocalNetwork(address: receiver.hostAddress)

        let index = try await receiver.fetch(
            try proxy.sharedURL(for: origin.url(for: "/hls/index.m3u8")).absoluteString)
        XCTAssertEqual(index.status, 200)
        let text = String(decoding: index.body, as: UTF8.self)
        let segment = try XCTUnwrap(text.split(separator: "\n").first { $0.hasSuffix("seg0.ts") })
        XCTAssertTrue(segment.hasPrefix(shared.path + "/w/"), "\(segment)")
        let fetched = try await receiver.fetch("http://\(receiver.hostAddress):\(shared.port!)\(segment)")
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.body, TestContent.generatedBytes(seed: 8, range: 0..<200_000))

        // Loopback's playlist names its paths without the token, from the same cache.
        let local = try await Curl.fetch(try proxy.url(for: origin.url(for: "/hls/index.m3u8")))
        XCTAssertTrue(String(decoding: local.body, as: UTF8.self).contains("\n/w/"))
    }

    func testSharedURLsReachOnlyWhatTheyNameAndSharingEndsWhenStopped() async throws {
        let receiver = try NetworkNamespace(test: self)
        // Without allowedHosts too: a receiver holding shared URLs reaches what they name, nothing else.
        let open = SpoolProxy(cache: cache)
        try await open.start()
        elsewhere.serve(.data(Data("secret".utf8)), at: "/secret", contentType: "text/plain")
        origin.serve(.generated(length: 1000, seed: 10), at: "/shared.mp3", contentType: "audio/mpeg")
        try await open.shareOnLocalNetwork(address: receiver.hostAddress)
        let sharedURL = try open.sharedURL(for: origin.url(for: "/shared.mp3")).absoluteString
        let sharedServed = try await receiver.fetch(sharedURL)
        XCTAssertEqual(sharedServed.status, 200)
        let encode = { (url: URL) in
            Data(url.absoluteString.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let swapped = sharedURL.replacingOccurrences(
            of: encode(origin.url(for: "/shared.mp3")), with: encode(elsewhere.url(for: "/secret")))
        XCTAssertNotEqual(swapped, sharedURL)
        let forged = try await receiver.fetch(swapped)
        XCTAssertEqual(forged.status, 403, "the proof names the shared URL only")
        XCTAssertEqual(elsewhere.requestCount, 0)
        await open.stop()

        origin.serve(.generated(length: 10_000, seed: 9), at: "/a.mp3", contentType: "audio/mpeg")
        try await proxy.shareOnLocalNetwork(address: receiver.hostAddress)
        let url = try proxy.sharedURL(for: origin.url(for: "/a.mp3"))
        let served = try await receiver.fetch(url.absoluteString)
        XCTAssertEqual(served.status, 200)
        await proxy.stopSharingOnLocalNetwork()
        XCTAssertThrowsError(try proxy.sharedURL(for: origin.url(for: "/a.mp3")))
        let gone = try await receiver.fetch(url.absoluteString)
        XCTAssertEqual(gone.exit, 7, "curl: connection refused once sharing stopped")
        let local = try await Curl.fetch(try proxy.url(for: origin.url(for: "/a.mp3")))
        XCTAssertEqual(local.status, 200, "loopback goes on")
    }

    func testASharedSocketLostUnderTheProxyListensAgain() async throws {
        let receiver = try NetworkNamespace(test: self)
        let events = EventRecorder(proxy)
        origin.serve(.generated(length: 10_000, seed: 10), at: "/b.mp3", contentType: "audio/mpeg")
        let shared = try await proxy.shareOnLocalNetwork(address: receiver.hostAddress)
        await proxy.loseListeningSocketForTesting(shared: true, noticed: true)
        let again = await events.next(within: .seconds(5)) { if case .listeningAgain = $0 { true } else { false } }
        XCTAssertEqual(again, .listeningAgain(shared))
        let served = try await receiver.fetch(try proxy.sharedURL(for: origin.url(for: "/b.mp3")).absoluteString)
        XCTAssertEqual(served.status, 200)
        XCTAssertEqual(served.body, TestContent.generatedBytes(seed: 10, range: 0..<10_000))
    }
}
