import Foundation
import NIOCore
import NIOHTTP1
import Spool
import SpoolTesting
import XCTest

@testable import SpoolProxy

#if canImport(Glibc)
import Glibc
#endif

/// Requests whose bytes are all stored and checked are answered on the event loop at once
/// (`ProxyResponder.storedHit`); everything else goes through the connection's task, with the same bytes.
final class StoredHitTests: XCTestCase {
    private let length: Int64 = 2 * 1024 * 1024 + 123
    private let seed: UInt64 = 45
    /// The key of the fixture's proxy, so that responders made here check its URLs' proofs.
    private let key = ProxyURLKey()
    private var configuration: ProxyConfiguration { ProxyConfiguration(urlKey: key) }

    private func expected(_ range: Range<Int64>) -> Data { TestContent.generatedBytes(seed: seed, range: range) }

    func testOnlyStoredCheckedSingleRangesAreAnsweredAtOnce() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let responder = ProxyResponder(cache: fixture.cache, configuration: configuration)
        let target = try fixture.proxyURL("song.mp3").path
        let slices = UnsentSlices()
        defer { slices.closeAndReleaseAll() }

        // Not open yet: the task reads (and the origin is asked).
        XCTAssertNil(responder.storedHit(to: request(target, range: "bytes=0-99"), slices: slices, revoke: {}))
        // The first half only, read through the cache, which writes and so checks it.
        for try await _ in fixture.cache.read(fixture.originURL("song.mp3"), from: 0, length: length / 2) {}
        XCTAssertNil(
            responder.storedHit(to: request(target, range: "bytes=\(length / 2 - 10)-"), slices: slices, revoke: {}),
            "a range reaching past the stored bytes")

        for (range, bytes) in [("bytes=100-199", Int64(100)..<200), ("bytes=0-0", 0..<1)] {
            let hit = try XCTUnwrap(
                responder.storedHit(to: request(target, range: range), slices: slices, revoke: {}), range)
            try check(hit, status: 206, bytes: bytes)
        }
        // Open-ended: answered only once the rest is stored too.
        XCTAssertNil(responder.storedHit(to: request(target, range: "bytes=1000-"), slices: slices, revoke: {}))
        for try await _ in fixture.cache.read(fixture.originURL("song.mp3")) {}
        let tail = try XCTUnwrap(
            responder.storedHit(to: request(target, range: "BYTES = 1000-"), slices: slices, revoke: {}))
        try check(tail, status: 206, bytes: 1000..<length)
        let whole = try XCTUnwrap(responder.storedHit(to: request(target, range: nil), slices: slices, revoke: {}))
        try check(whole, status: 200, bytes: 0..<length)
        let suffix = try XCTUnwrap(
            responder.storedHit(to: request(target, range: "bytes=-10"), slices: slices, revoke: {}))
        try check(suffix, status: 206, bytes: (length - 10)..<length)

        // Everything else is the task's: several ranges, HEAD, conditional and unsatisfiable requests,
        // connections that close, HTTP/1.0, pings and paths that name no origin.
        let foundEntry = await fixture.cache.entry(for: fixture.originURL("song.mp3"))
        let entityTag = try XCTUnwrap(foundEntry?.info.entityTag)
        let declined: [(String, HTTPRequestHead)] = [
            ("multipart", request(target, range: "bytes=0-9,20-29")),
            ("HEAD", request(target, range: nil, method: .HEAD)),
            ("If-None-Match", request(target, range: nil, extra: [("If-None-Match", entityTag)])),
            ("416", request(target, range: "bytes=\(length)-")),
            ("close", request(target, range: "bytes=0-9", extra: [("Connection", "close")])),
            ("HTTP/1.0", request(target, range: "bytes=0-9", version: .http1_0)),
            ("ping", request(SpoolProxy.pingPath, range: nil)),
            ("no origin", request("/nothing", range: "bytes=0-9")),
        ]
        for (label, head) in declined {
            XCTAssertNil(responder.storedHit(to: head, slices: slices, revoke: {}), label)
        }
        let elsewhere = ProxyResponder(
            cache: fixture.cache, configuration: ProxyConfiguration(allowedHosts: ["example.com"], urlKey: key))
        XCTAssertNil(
            elsewhere.storedHit(to: request(target, range: "bytes=0-9"), slices: slices, revoke: {}),
            "an origin host not allowed")
        let anotherProxy = ProxyResponder(cache: fixture.cache, configuration: ProxyConfiguration())
        XCTAssertNil(
            anotherProxy.storedHit(to: request(target, range: "bytes=0-9"), slices: slices, revoke: {}),
            "a URL another proxy made: not served, not even from stored bytes")
    }

    func testNoSliceLargerThanTheSliceSizeAndNoneFromAnEncryptedCache() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        let large = FetchPolicy().fileSliceSize + 4096
        try fixture.serveGenerated("large.mp4", length: Int64(large), seed: seed)
        let target = try fixture.proxyURL("large.mp4").path
        let responder = ProxyResponder(cache: fixture.cache, configuration: configuration)
        let slices = UnsentSlices()
        defer { slices.closeAndReleaseAll() }
        for try await _ in fixture.cache.read(fixture.originURL("large.mp4")) {}
        XCTAssertNil(responder.storedHit(to: request(target, range: nil), slices: slices, revoke: {}))
        let most = try XCTUnwrap(
            responder.storedHit(to: request(target, range: "bytes=4096-"), slices: slices, revoke: {}))
        XCTAssertEqual(most.record.bodyBytes, Int64(large - 4096))

        let sealedDirectory = fixture.cacheDirectory.deletingLastPathComponent().appendingPathComponent("sealed")
        let sealed = try SpoolCache(
            configuration: SpoolConfiguration(directory: sealedDirectory, encryptionKey: Data(repeating: 7, count: 32)))
        for try await _ in sealed.read(fixture.originURL("large.mp4"), from: 0, length: 1000) {}
        let sealedResponder = ProxyResponder(cache: sealed, configuration: configuration)
        XCTAssertNil(sealedResponder.storedHit(to: request(target, range: "bytes=0-99"), slices: slices, revoke: {}))
        await sealed.close()
    }

    func testPlaylistsAreNeverAnsweredFromTheFileAsTheyAre() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\na.ts\n#EXT-X-ENDLIST\n"
        try playlist.write(to: fixture.www.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        try fixture.serveGenerated("small.bin", length: 4096, seed: seed)
        let responder = ProxyResponder(cache: fixture.cache, configuration: configuration)
        let slices = UnsentSlices()
        defer { slices.closeAndReleaseAll() }
        for name in ["list.txt", "small.bin"] {
            for try await _ in fixture.cache.read(fixture.originURL(name)) {}
        }
        let list = try fixture.proxyURL("list.txt").path
        XCTAssertNil(responder.storedHit(to: request(list, range: nil), slices: slices, revoke: {}))
        XCTAssertNil(responder.storedHit(to: request(list, range: "bytes=5-"), slices: slices, revoke: {}))
        let small = try fixture.proxyURL("small.bin").path
        let hit = try XCTUnwrap(
            responder.storedHit(to: request(small, range: "bytes=100-"), slices: slices, revoke: {}))
        XCTAssertEqual(hit.record.bodyBytes, 3996, "a small file that is no playlist is answered at once")
    }

    /// Whether a small file is a playlist is told by its first bytes as the engine saw them, never by a read on
    /// the event loop: until this process has seen them, the task answers; media types are no playlist.
    func testASmallFileIsAnsweredAtOnceOnlyOnceItsFirstBytesAreKnown() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        try fixture.serveGenerated("part.bin", length: 4096, seed: seed)
        try fixture.serveGenerated("clip.mp4", length: 4096, seed: seed)
        let responder = ProxyResponder(cache: fixture.cache, configuration: configuration)
        let slices = UnsentSlices()
        defer { slices.closeAndReleaseAll() }
        for name in ["part.bin", "clip.mp4"] {
            for try await _ in fixture.cache.read(fixture.originURL(name), from: 100) {}
        }
        let part = try fixture.proxyURL("part.bin").path
        XCTAssertNil(
            responder.storedHit(to: request(part, range: "bytes=100-"), slices: slices, revoke: {}),
            "its first bytes unknown: the task looks")
        let clip = try fixture.proxyURL("clip.mp4").path
        let media = try XCTUnwrap(
            responder.storedHit(to: request(clip, range: "bytes=100-"), slices: slices, revoke: {}),
            "a type that names media is no playlist")
        XCTAssertEqual(media.record.bodyBytes, 3996)
        for try await _ in fixture.cache.read(fixture.originURL("part.bin"), from: 0, length: 100) {}
        let hit = try XCTUnwrap(
            responder.storedHit(to: request(part, range: "bytes=100-"), slices: slices, revoke: {}),
            "its first bytes seen and no playlist: at once")
        XCTAssertEqual(hit.record.bodyBytes, 3996)
    }

    /// Pipelined on one connection, answers from the event loop and from the task keep their order.
    func testPipelinedHitsAndReadsKeepTheirOrder() async throws {
        let fixture = try await ProxyFixture(test: self, configuration: configuration)
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        _ = try await Curl.fetch(try fixture.proxyURL("song.mp3"))
        let target = try fixture.proxyURL("song.mp3").path
        let ranges = ["0-9", "0-1,5-6", "20-29", "30-39"]
        let port = try XCTUnwrap(fixture.proxy.baseURL?.port)
        let host = "Host: 127.0.0.1:\(port)"
        var requests = ranges.map { "GET \(target) HTTP/1.1\r\n\(host)\r\nRange: bytes=\($0)\r\n\r\n" }
        requests.append("GET \(target) HTTP/1.1\r\n\(host)\r\nRange: bytes=40-49\r\nConnection: close\r\n\r\n")
        let responses = try Self.responses(in: try await RawHTTP.exchangeBytes(port: port, requests.joined()))
        XCTAssertEqual(responses.map(\.status), [206, 206, 206, 206, 206])
        guard responses.count == 5 else { return }
        for (index, first) in [(0, Int64(0)), (2, 20), (3, 30), (4, 40)] {
            XCTAssertEqual(responses[index].body, expected(first..<(first + 10)), "response \(index)")
        }
        XCTAssertTrue(responses[1].contentType.hasPrefix("multipart/byteranges"), responses[1].contentType)
    }

    /// The responses one after the other in `bytes`, each body as long as its `Content-Length`.
    private static func responses(in bytes: Data) throws -> [(status: Int, contentType: String, body: Data)] {
        var result: [(status: Int, contentType: String, body: Data)] = []
        var rest = bytes[...]
        while !rest.isEmpty, result.count < 100 {
            let end = try XCTUnwrap(rest.firstRange(of: Data("\r\n\r\n".utf8)), "a head without its end")
            let head = String(decoding: rest[..<end.lowerBound], as: UTF8.self)
            let status = Curl.statusCode(head + "\r\n")
            let fields = Curl.fields(head)
            let length = try XCTUnwrap(fields["content-length"].flatMap { Int($0) }, head)
            let body = rest[end.upperBound...].prefix(length)
            XCTAssertEqual(body.count, length, "a short body")
            result.append((status, fields["content-type"] ?? "", Data(body)))
            rest = rest[end.upperBound...].dropFirst(length)
        }
        return result
    }

    private func request(
        _ target: String, range: String?, method: HTTPMethod = .GET, version: HTTPVersion = .http1_1,
        extra: [(String, String)] = []
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", "127.0.0.1")] + extra)
        if let range { headers.add(name: "Range", value: range) }
        return HTTPRequestHead(version: version, method: method, uri: target, headers: headers)
    }

    /// The hit's head says `status` and the length of `bytes`, and its body region holds exactly `bytes`.
    private func check(_ hit: ProxyResponder.StoredHit, status: Int, bytes: Range<Int64>) throws {
        guard hit.parts.count == 3, case .head(let head) = hit.parts[0],
            case .body(.fileRegion(let region)) = hit.parts[1],
            case .end = hit.parts[2]
        else { return XCTFail("not a head, a file region and an end: \(hit.parts)") }
        XCTAssertEqual(Int(head.status.code), status)
        XCTAssertEqual(head.headers.first(name: "content-length"), "\(bytes.count)")
        XCTAssertEqual(head.headers.first(name: "x-spool-cache"), "hit")
        if status == 206 {
            XCTAssertEqual(
                head.headers.first(name: "content-range"), "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/\(length)"
            )
        }
        XCTAssertEqual(hit.record.status, status)
        XCTAssertEqual(Int64(region.readableBytes), Int64(bytes.count))
        var read = [UInt8](repeating: 0, count: region.readableBytes)
        let count = try region.fileHandle.withUnsafeFileDescriptor { descriptor in
            read.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(region.readerIndex)) }
        }
        XCTAssertEqual(count, read.count)
        XCTAssertEqual(Data(read), expected(bytes))
    }
}
