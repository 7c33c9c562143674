import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolTesting
import XCTest

/// Real origins speak HTTPS, most of them HTTP/2: nginx with TLS (a certificate from the test's own
/// authority), HTTP/1.1 and HTTP/2, reached across an emulated link through the AsyncHTTPClient transport,
/// which is told to trust that authority and nothing else changes. The bytes are the file's; HTTP/2 shares one
/// connection; an origin whose certificate is not trusted fails the read and caches nothing.
final class TLSOriginTests: XCTestCase {
    private let length = 2_000_000

    private func serve(_ tls: NginxTLS, logsDebug: Bool = false) throws -> (NginxOrigin, URL) {
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("spool-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: www) }
        try TestContent.writeGenerated(seed: 61, length: Int64(length), to: www.appendingPathComponent("a.mp4"))
        let nginx = try NginxOrigin(serving: www, tls: tls, logsDebug: logsDebug)
        addTeardownBlock { nginx.stop() }
        return (nginx, www)
    }

    private func cache(trusting roots: [URL]) throws -> (SpoolCache, AsyncHTTPClientTransport) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-tls-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let transport = AsyncHTTPClientTransport(additionalTrustRoots: roots)
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: directory, origin: HTTPOrigin(transport: transport)))
        return (cache, transport)
    }

    /// A long file beside `a.mp4` on nginx with TLS behind the broadband emulator, and a cache that has read
    /// `a.mp4` once, so the engine knows the host's round trip, rate and protocol: the long file's URL.
    private func warmedLongFile(http2: Bool, seed: UInt64, length longLength: Int64) async throws -> (
        nginx: NginxOrigin, link: LinkEmulator, cache: SpoolCache, transport: AsyncHTTPClientTransport, url: URL
    ) {
        let authority = try TestCertificateAuthority()
        let (nginx, www) = try serve(NginxTLS(authority: authority, http2: http2))
        try TestContent.writeGenerated(seed: seed, length: longLength, to: www.appendingPathComponent("long.mp4"))
        let link = try LinkEmulator(upstreamPort: nginx.port, profile: .broadband)
        addTeardownBlock { link.stop() }
        let (cache, transport) = try cache(trusting: [authority.certificateFile])
        _ = try await collect(cache.read(URL(string: "https://127.0.0.1:\(link.port)/a.mp4")!))
        return (nginx, link, cache, transport, URL(string: "https://127.0.0.1:\(link.port)/long.mp4")!)
    }

    func testReadsOverTLSWithAndWithoutHTTP2AcrossALink() async throws {
        let authority = try TestCertificateAuthority()
        let settings: [(NginxTLS.Version, Bool)] = [(.tls13, false), (.tls13, true), (.tls12, false)]
        for (version, http2) in settings {
            let (nginx, _) = try serve(NginxTLS(authority: authority, version: version, http2: http2))
            let link = try LinkEmulator(upstreamPort: nginx.port, profile: .broadband)
            defer { link.stop() }
            let url = URL(string: "https://127.0.0.1:\(link.port)/a.mp4")!
            let (cache, transport) = try cache(trusting: [authority.certificateFile])
            let data = try await collect(cache.read(url))
            XCTAssertEqual(data, TestContent.generatedBytes(seed: 61, range: 0..<Int64(length)), "\(version) \(http2)")
            let log = try nginx.accessLog(waitingForEntries: 1)
            XCTAssertFalse(log.isEmpty)
            XCTAssertEqual(
                Set(log.map(\.httpProtocol)), [http2 ? "HTTP/2.0" : "HTTP/1.1"], "\(version), HTTP/2 offered: \(http2)")
            XCTAssertEqual(link.counters.connectionsAccepted, 1, "\(log.count) requests on one connection")
            // AsyncHTTPClient's bodies pause while unread: a read's first request asks for its rest, as a player's
            // does, and over HTTP/1.1 it is the only one. Over HTTP/2 an unread stream still takes its window, so
            // the read goes on in pieces on the same connection (see the next test).
            XCTAssertEqual(
                log.compactMap(\.range).first { $0.hasPrefix("bytes=0-") },
                "bytes=0-\(FetchPolicy.wholeRequestLimit - 1)", "\(version) \(http2)")
            if !http2 { XCTAssertEqual(log.count, 1, "\(version): one request per read") }
            // The engine sizes what it keeps in flight by whether the transport says requests share a connection.
            let response = try await HTTPOrigin(transport: transport).read(OriginReadRequest(url: url, range: 0..<1024))
            XCTAssertEqual(response.multiplexed, http2, "\(version), HTTP/2 offered: \(http2)")
            for try await _ in response.body {}
            await cache.close()
            await transport.shutdown()
        }
    }

    /// Once a host is known to multiplex, a read goes in pieces (an unread stream still takes its 8 MiB window,
    /// so a request for the rest could not be held near its reader): a first request's size, then what the read
    /// consumed, so a long read takes a handful of requests, not one per quarter of the link's product (a 20 MB
    /// read over an emulated mobile link took 43 requests before, 8 after).
    func testALongReadOverHTTP2TakesAFewGrowingRequestsOnOneConnection() async throws {
        let longLength: Int64 = 8_000_000
        let (nginx, link, cache, transport, url) = try await warmedLongFile(http2: true, seed: 63, length: longLength)
        let before = try nginx.accessLog(waitingForEntries: 1).count
        let data = try await collect(cache.read(url))
        XCTAssertEqual(data, TestContent.generatedBytes(seed: 63, range: 0..<longLength))
        let ranges = try nginx.accessLog(waitingForEntries: before + 1).dropFirst(before).compactMap(\.range)
        XCTAssertLessThanOrEqual(ranges.count, 7, "requests for 8 MB: \(ranges)")
        XCTAssertEqual(link.counters.connectionsAccepted, 1)
        await cache.close()
        await transport.shutdown()
    }

    /// Over HTTP/1.1 only closing its connection stops a response, so a player's seek used to cost a new TLS
    /// connection each time. A piece left near its end now runs to it (`FetchPolicy.abandonedRunsOnWithin`),
    /// and its connection takes a later seek: six seeks of 300 kB took 5-6 connections with the bound forced to
    /// 0 (three runs), 2-3 with it (eight runs).
    func testSeeksOverHTTP1ReuseTheConnectionsOfThePiecesTheyLeave() async throws {
        let (_, link, cache, transport, url) = try await warmedLongFile(
            http2: false, seed: 64, length: 8_000_000)
        // The content information first, as a player asks for it.
        _ = try await collect(cache.read(url, length: 2))
        let played: Int64 = 300_000
        for offset: Int64 in [1_000_000, 5_000_000, 3_000_000, 7_000_000, 2_000_000, 6_000_000] {
            var data = Data()
            for try await chunk in cache.read(url, from: offset) {
                data.append(chunk)
                if data.count >= played { break }
            }
            XCTAssertEqual(
                data.prefix(Int(played)), TestContent.generatedBytes(seed: 64, range: offset..<offset + played))
        }
        XCTAssertLessThanOrEqual(link.counters.connectionsAccepted, 3, "connections for the first read and six seeks")
        await cache.close()
        await transport.shutdown()
    }

    /// AsyncHTTPClient advertises HTTP/2's 64 KiB windows and grows a stream's only once its first bytes
    /// arrive, so each new stream (each range request) carried 64 KiB in its first round trip. The transport
    /// opens the windows of new streams and of the connection to 8 MiB before the connection's first request,
    /// as the origin's own debug log shows, and tells the engine so.
    func testHTTP2WindowsAreOpenBeforeTheFirstRequest() async throws {
        let authority = try TestCertificateAuthority()
        let (nginx, _) = try serve(NginxTLS(authority: authority, http2: true), logsDebug: true)
        let transport = AsyncHTTPClientTransport(additionalTrustRoots: [authority.certificateFile])
        let response = try await HTTPOrigin(transport: transport).read(
            OriginReadRequest(url: nginx.url(for: "a.mp4"), range: 0..<1024))
        for try await _ in response.body {}
        await transport.shutdown()
        XCTAssertTrue(response.multiplexed)
        XCTAssertEqual(response.initialStreamWindow, 8 << 20)
        let log = try nginx.errorLog()
        let settings = try XCTUnwrap(
            log.range(of: "http2 setting 4:\(8 << 20)"), "the stream window: \(log.suffix(3000))")
        let update = try XCTUnwrap(
            log.range(of: "http2 WINDOW_UPDATE frame sid:0 window:\((8 << 20) - 65_535)"), "the connection's")
        let request = try XCTUnwrap(log.range(of: "http2 HEADERS frame sid:1 "), "the first request")
        XCTAssertLessThan(settings.lowerBound, request.lowerBound)
        XCTAssertLessThan(update.lowerBound, request.lowerBound)
    }

    /// A response the engine stops reading over HTTPS (a seek, a player gone) closes its connection at once: the
    /// link carries no more than was in flight. NIOSSL's default waited up to 5 s for the server's
    /// close_notify, reading the rest of the response meanwhile: 20 MB crossed a 40 Mbit/s link for a read
    /// of 64 KiB.
    func testAnAbandonedHTTPSResponseStopsCrossingTheLink() async throws {
        let authority = try TestCertificateAuthority()
        let (nginx, www) = try serve(NginxTLS(authority: authority))
        let length: Int64 = 20_000_000
        try TestContent.writeGenerated(seed: 62, length: length, to: www.appendingPathComponent("long.mp4"))
        let link = try LinkEmulator(upstreamPort: nginx.port, profile: .broadband, scheme: "https")
        defer { link.stop() }
        let transport = AsyncHTTPClientTransport(additionalTrustRoots: [authority.certificateFile])
        let origin = HTTPOrigin(transport: transport)
        var received: Int64 = 0
        do {
            let response = try await origin.read(OriginReadRequest(url: link.url(for: "/long.mp4"), range: 0..<length))
            var iterator = response.body.makeAsyncIterator()
            while received < 65_536, let chunk = try await iterator.next() { received += Int64(chunk.count) }
        }
        XCTAssertGreaterThanOrEqual(received, 65_536)
        let closed = await eventually(timeout: 10) { link.openConnections == 0 }
        XCTAssertTrue(closed, "the connection closed")
        // In flight when the reader stopped: the link's window (two bandwidth-delay products) and the sockets'
        // buffers on either side of it.
        XCTAssertLessThan(link.bytesFromUpstream, 2_000_000, "bytes that crossed for a read of \(received)")
        await transport.shutdown()
    }

    func testAnUntrustedCertificateFailsTheReadAndCachesNothing() async throws {
        let (nginx, _) = try serve(NginxTLS(authority: try TestCertificateAuthority()))
        let url = nginx.url(for: "a.mp4")
        XCTAssertEqual(url.scheme, "https")
        // Trusting another authority is trusting none of this origin's (kept alive: its file goes with it).
        let other = try TestCertificateAuthority()
        let (cache, transport) = try cache(trusting: [other.certificateFile])
        do {
            _ = try await collect(cache.read(url, from: 0, length: 1000))
            XCTFail("read from an origin whose certificate nobody vouches for")
        } catch let error as SpoolError {
            XCTAssertTrue("\(error)".lowercased().contains("certificate"), "\(error)")
            XCTAssertTrue(
                "\(error)".hasPrefix(
                    "network error: TLS with \(url.host!):\(url.port!) failed: the server's certificate "
                        + "is signed by an authority not trusted here"), "\(error)")
        }
        let storedRanges = await cache.cachedRanges(for: Resource(url: url))
        XCTAssertEqual(storedRanges.byteCount, 0)
        await cache.close()
        await transport.shutdown()
        withExtendedLifetime(other) {}
    }

    /// Each certificate a client must refuse fails the read with the reason in the message: one for another
    /// host name, one that expired.
    func testACertificateForAnotherNameOrExpiredFailsSayingWhy() async throws {
        let cases: [(authority: TestCertificateAuthority, says: String)] = [
            (try TestCertificateAuthority(serverNames: ["DNS:cdn.example"]), "is for another host name"),
            (try TestCertificateAuthority(serverDays: -1), "has expired"),
        ]
        for (authority, says) in cases {
            let (nginx, _) = try serve(NginxTLS(authority: authority))
            let url = nginx.url(for: "a.mp4")
            let (cache, transport) = try cache(trusting: [authority.certificateFile])
            do {
                _ = try await collect(cache.read(url, from: 0, length: 1000))
                XCTFail("read from an origin whose certificate must be refused (\(says))")
            } catch let error as SpoolError {
                print("[tls] \(error)")
                XCTAssertTrue(
                    "\(error)".hasPrefix("network error: TLS with \(url.host!):\(url.port!) failed: "), "\(error)")
                XCTAssertTrue("\(error)".contains(says), "\(error)")
            }
            await cache.close()
            await transport.shutdown()
        }
    }
}
