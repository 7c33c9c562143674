import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// Where a playlist's URIs lead: relative ones resolve against the URL the origin redirected the playlist to,
/// and absolute ones on hosts the proxy may not reach stay as the origin wrote them, with a log line.
final class HLSSourcesTests: XCTestCase {
    func testRelativeURIsResolveAgainstTheURLTheOriginRedirectedTo() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        let directory = fixture.www.appendingPathComponent("hls")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try await generate(
            with: ffmpeg,
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4",
                "-c:v", "mpeg2video", "-q:v", "4", "-g", "25", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                "-hls_playlist_type", "vod", directory.appendingPathComponent("index.m3u8").path,
            ])
        // `/moved/hls/index.m3u8` answers 302 to `/hls/index.m3u8`; its segments are not under `/moved/`.
        let (direct, requests) = try await playThroughProxy(fixture, "moved/hls/index.m3u8", with: ffmpeg)
        XCTAssertEqual(requests.filter { $0.path.hasPrefix("/moved/") }.map(\.path), ["/moved/hls/index.m3u8"])
        XCTAssertEqual(requests.filter { $0.path.hasPrefix("/hls/") && $0.path.hasSuffix(".ts") }.count, 2)
        try await assertPlaysOffline(fixture, "moved/hls/index.m3u8", like: direct, with: ffmpeg)
    }

    func testURIsOnHostsNotAllowedAreLeftAloneAndLogged() async throws {
        let records = LogRecords()
        let fixture = try await ProxyFixture(
            test: self,
            configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"], log: { record in records.add(record) }))
        let source = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.example.net/k?token=secret",IV=0x1
            #EXTINF:2,
            https://cdn.example.net/a.ts
            #EXTINF:2,
            b.ts
            #EXT-X-ENDLIST

            """
        try source.write(to: fixture.www.appendingPathComponent("list.m3u8"), atomically: true, encoding: .utf8)
        let response = try await offPool { try Curl.fetch(try fixture.proxyURL("list.m3u8")) }
        let body = String(decoding: response.body, as: UTF8.self)
        XCTAssertTrue(body.contains("URI=\"https://keys.example.net/k?token=secret\""), body)
        XCTAssertTrue(body.contains("\nhttps://cdn.example.net/a.ts\n"), body)
        XCTAssertTrue(body.contains("\n/w/"), "the origin's own segment goes through the proxy: \(body)")
        let note = try XCTUnwrap(records.all.compactMap(\.note).first)
        XCTAssertTrue(note.contains("2 URIs") && note.contains("cdn.example.net, keys.example.net"), note)
        XCTAssertFalse(note.contains("secret"), "URIs are not logged, only their hosts")
    }

    func testKeysAreCachedUnderPathsNoLogNamesOrLeftToThePlayerWhenAsked() async throws {
        for cachesKeys in [true, false] {
            let records = LogRecords()
            let fixture = try await ProxyFixture(
                test: self,
                configuration: ProxyConfiguration(log: { record in records.add(record) }, cachesKeys: cachesKeys))
            let origin = fixture.nginx.baseURL.absoluteString
            try Data(repeating: 7, count: 16).write(to: fixture.www.appendingPathComponent("secret-name.key"))
            let source = """
                #EXTM3U
                #EXT-X-TARGETDURATION:2
                #EXT-X-KEY:METHOD=AES-128,URI="\(origin)/secret-name.key"
                #EXTINF:2,
                a.ts
                #EXT-X-ENDLIST

                """
            try source.write(to: fixture.www.appendingPathComponent("k.m3u8"), atomically: true, encoding: .utf8)
            let body = String(
                decoding: try await offPool { try Curl.fetch(try fixture.proxyURL("k.m3u8")) }.body, as: UTF8.self)
            let keyLine = try XCTUnwrap(body.split(separator: "\n").first { $0.hasPrefix("#EXT-X-KEY") })
            guard cachesKeys else {
                XCTAssertTrue(keyLine.contains("URI=\"\(origin)/secret-name.key\""), "left to the player: \(keyLine)")
                XCTAssertTrue(records.all.allSatisfy { $0.note == nil }, "nothing to note: \(records.all)")
                continue
            }
            let path = try XCTUnwrap(keyLine.split(separator: "\"").dropFirst().first)
            XCTAssertTrue(path.hasPrefix("/k/"), String(keyLine))
            let base = try XCTUnwrap(fixture.proxy.baseURL)
            let key = try await offPool { try Curl.fetch(URL(string: String(path), relativeTo: base)!) }
            XCTAssertEqual(key.body, Data(repeating: 7, count: 16))
            XCTAssertEqual(try fixture.nginx.accessLog().filter { $0.path == "/secret-name.key" }.count, 1)
            let logged = records.all.map(\.description).joined(separator: "\n")
            XCTAssertTrue(logged.contains("(HLS key on 127.0.0.1)"), logged)
            XCTAssertFalse(logged.contains("secret-name"), logged)
        }
    }
}
