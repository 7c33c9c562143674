import Foundation
import Spool
import SpoolTesting
import XCTest

/// HLS played by ffmpeg through the proxy: the playlist comes back rewritten, so the key and every segment
/// come through the cache, the decoded frames are those of a direct play, and the stream plays again with the
/// origin gone.
final class HLSThroughProxyTests: XCTestCase {
    func testEncryptedStreamWithAbsoluteURIsPlaysThroughTheCacheAndOffline() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        let origin = fixture.nginx.baseURL.absoluteString
        // An AES-128 key on the origin, named by an absolute URI; segments named by absolute URIs too.
        try await generateEncryptedTS(
            fixture, ffmpeg, playlist: "index.m3u8", key: "enc.key", segments: "seg%d.ts", absoluteSegments: true,
            videoFilter: "noise=alls=12:allf=t")
        let playlistText = try String(contentsOf: fixture.www.appendingPathComponent("index.m3u8"), encoding: .utf8)
        XCTAssertTrue(playlistText.contains("URI=\"\(origin)/enc.key\""), playlistText)
        XCTAssertTrue(playlistText.contains("\(origin)/seg0.ts"), playlistText)

        let (direct, requests) = try await playThroughProxy(fixture, "index.m3u8", with: ffmpeg)
        XCTAssertGreaterThan(direct.frames, 100)
        for name in ["/index.m3u8", "/enc.key", "/seg0.ts", "/seg1.ts", "/seg2.ts"] {
            XCTAssertEqual(
                requests.filter { $0.path == name }.count, 1, "\(name): one origin request through the cache")
        }
        XCTAssertEqual(requests.filter { $0.method != "GET" }.map(\.path), [], "no HEAD")
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.www.path)
        let total = try files.reduce(Int64(0)) { $0 + (try Self.size(of: fixture.www.appendingPathComponent($1))) }
        let originBytes = requests.reduce(Int64(0)) { $0 + $1.bodyBytesSent }
        XCTAssertLessThanOrEqual(Double(originBytes), 1.05 * Double(total), "origin bytes against the stream's size")

        // Offline: the playlist, the key and the segments are all in the cache.
        try await assertPlaysOffline(fixture, "index.m3u8", like: direct, with: ffmpeg)
    }

    func testFragmentedMP4InOneFileWithByteRangesIsOneEntryAndOneRequestPerRange() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        try await generateSingleFileFMP4(fixture, ffmpeg, playlist: "index.m3u8")
        let playlistText = try String(contentsOf: fixture.www.appendingPathComponent("index.m3u8"), encoding: .utf8)
        XCTAssertTrue(playlistText.contains("#EXT-X-MAP:URI=\"index.m4s\",BYTERANGE="), playlistText)
        XCTAssertTrue(playlistText.contains("#EXT-X-BYTERANGE:"), playlistText)

        let (direct, requests) = try await playThroughProxy(fixture, "index.m3u8", with: ffmpeg)
        // The init section and every segment are ranges of one file: at most one origin request each, never
        // a byte twice.
        let file = requests.filter { $0.path == "/index.m4s" }
        let ranges = playlistText.components(separatedBy: "BYTERANGE").count - 1
        XCTAssertGreaterThan(file.count, 0)
        XCTAssertLessThanOrEqual(file.count, ranges, "\(file.map { $0.range ?? "-" })")
        XCTAssertLessThanOrEqual(
            file.reduce(Int64(0)) { $0 + $1.bodyBytesSent },
            try Self.size(of: fixture.www.appendingPathComponent("index.m4s")))

        try await assertPlaysOffline(fixture, "index.m3u8", like: direct, with: ffmpeg)
    }

    func testAMasterKeepsEveryVariantAndItsAudioRendition() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        try await generateMaster(
            fixture, ffmpeg, master: "master.m3u8", prefix: "v", variants: [("400k", nil), ("800k", "160x120")])
        let master = try await Curl.fetch(try fixture.proxyURL("master.m3u8"))
        let text = String(decoding: master.body, as: UTF8.self)
        XCTAssertEqual(text.components(separatedBy: "#EXT-X-STREAM-INF").count - 1, 2, "both variants: \(text)")
        XCTAssertTrue(text.contains("#EXT-X-MEDIA:TYPE=AUDIO") && text.contains(",URI=\"/w/"), text)
        XCTAssertEqual(text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("/w/") }, [])

        let (_, requests) = try await playThroughProxy(fixture, "master.m3u8", with: ffmpeg)
        XCTAssertTrue(requests.contains { $0.path == "/v2_0.ts" }, "the audio rendition came through the cache")
    }

    func testPlaylistsAreFoundByContentAndRewrittenEveryTimeTheyAreServed() async throws {
        let fixture = try await ProxyFixture(test: self)
        let origin = fixture.nginx.baseURL.absoluteString
        // Named .txt: nginx serves it as text/plain, so only its first line says it is a playlist.
        let source = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n\(origin)/a.ts\n#EXTINF:2,\nb.ts\n#EXT-X-ENDLIST\n"
        try source.write(to: fixture.www.appendingPathComponent("list.txt"), atomically: true, encoding: .utf8)
        let url = try fixture.proxyURL("list.txt")
        for attempt in ["first, from the origin", "again, from the cache"] {
            let response = try await Curl.fetch(url)
            XCTAssertEqual(response.status, 200, attempt)
            let body = String(decoding: response.body, as: UTF8.self)
            let paths = body.split(separator: "\n").filter { !$0.hasPrefix("#") }
            XCTAssertEqual(paths.count, 2, body)
            XCTAssertTrue(paths.allSatisfy { $0.hasPrefix("/w/") }, "\(attempt): \(body)")
            XCTAssertEqual(response.headers["content-length"], "\(response.body.count)", attempt)
            XCTAssertNil(response.headers["cache-control"], "a VOD playlist may be kept")
        }
        // A range of a playlist gets the whole rewritten playlist.
        let ranged = try await Curl.fetch(url, ["--range", "0-9"])
        XCTAssertEqual(ranged.status, 200)
        XCTAssertTrue(String(decoding: ranged.body, as: UTF8.self).hasSuffix("#EXT-X-ENDLIST\n"))
        XCTAssertEqual(
            try fixture.nginx.accessLog().filter { $0.path == "/list.txt" }.count, 1, "a VOD playlist is fetched once")
    }
}
