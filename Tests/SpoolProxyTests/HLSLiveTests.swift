import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// Live HLS through the proxy: playlists reloaded no later than half their target duration, reloads shared,
/// the newest copy served when the origin is gone, the ended stream stored whole, and a stream that grows
/// while ffmpeg plays it decoded like the finished stream played directly.
final class HLSLiveTests: XCTestCase {
    func testALivePlaylistIsFetchedAgainOnceHalfItsTargetDurationHasPassed() async throws {
        let clock = SteppedClock()
        let fixture = try await ProxyFixture(test: self, clock: clock)
        let live = LivePlaylistFile(fixture.www.appendingPathComponent("live.m3u8"))
        try live.publish(2)
        let url = try fixture.proxyURL("live.m3u8")
        let first = try await Self.fetch(url)
        XCTAssertEqual(first.headers["cache-control"], "no-cache")
        XCTAssertEqual(LivePlaylistFile.segments(in: first.body), 2)
        try live.publish(3)
        let soon = try await Self.fetch(url)
        XCTAssertEqual(soon.body, first.body, "younger than half the target duration: served as it was")
        // More than half the target duration (1 s) passes.
        clock.advance(by: 0.7)
        let later = try await Self.fetch(url)
        XCTAssertEqual(
            LivePlaylistFile.segments(in: later.body), 3, "older than half the target duration: fetched again")
        XCTAssertEqual(try fixture.nginx.accessLog().filter { $0.path == "/live.m3u8" }.count, 2)
    }

    func testConcurrentReloadsShareOneOriginRequestAndNoneFails() async throws {
        let clock = SteppedClock()
        let fixture = try await ProxyFixture(test: self, clock: clock)
        let live = LivePlaylistFile(fixture.www.appendingPathComponent("live.m3u8"))
        try live.publish(2)
        let url = try fixture.proxyURL("live.m3u8")
        _ = try await Self.fetch(url)
        try live.publish(3)
        // More than half the target duration (1 s) passes.
        clock.advance(by: 0.7)
        let answers = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let answer = try await Self.fetch(url)
                    return (answer.status, answer.body)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(answers.map(\.0), Array(repeating: 200, count: 8))
        XCTAssertEqual(answers.map { LivePlaylistFile.segments(in: $0.1) }, Array(repeating: 3, count: 8))
        XCTAssertEqual(
            try fixture.nginx.accessLog().filter { $0.path == "/live.m3u8" }.count, 2, "eight reloads, one request")
    }

    func testTheNewestCopyIsServedWhenTheOriginIsGone() async throws {
        let records = LogRecords()
        let clock = SteppedClock()
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(log: { record in records.add(record) }), clock: clock)
        let live = LivePlaylistFile(fixture.www.appendingPathComponent("live.m3u8"))
        try live.publish(2)
        let url = try fixture.proxyURL("live.m3u8")
        let first = try await Self.fetch(url)
        // More than half the target duration (1 s) passes.
        clock.advance(by: 0.7)
        fixture.nginx.stop()
        let offline = try await Self.fetch(url)
        XCTAssertEqual(offline.status, 200)
        XCTAssertEqual(offline.body, first.body)
        XCTAssertTrue(records.all.contains { $0.note?.contains("live playlist served") == true }, "\(records.all)")
    }

    func testAStreamThatEndsIsStoredWhole() async throws {
        let clock = SteppedClock()
        let fixture = try await ProxyFixture(test: self, clock: clock)
        let live = LivePlaylistFile(fixture.www.appendingPathComponent("live.m3u8"))
        try live.publish(2)
        let url = try fixture.proxyURL("live.m3u8")
        _ = try await Self.fetch(url)
        try live.publish(3, ended: true)
        // More than half the target duration (1 s) passes.
        clock.advance(by: 0.7)
        let ended = try await Self.fetch(url)
        XCTAssertEqual(LivePlaylistFile.segments(in: ended.body), 3)
        XCTAssertNil(ended.headers["cache-control"], "an ended stream is kept like any VOD playlist")
        var stored = Data()
        for try await chunk in fixture.cache.read(fixture.originURL("live.m3u8")) { stored.append(chunk) }
        XCTAssertTrue(String(decoding: stored, as: UTF8.self).hasSuffix("#EXT-X-ENDLIST\n"), "the cache holds the end")
    }

    func testAStreamGrowingWhileFFmpegPlaysItDecodesLikeTheFinishedStream() async throws {
        let ffmpeg = try Self.ffmpeg()
        let fixture = try await ProxyFixture(test: self)
        let www = fixture.www.path
        // Written in real time: a segment a second, the playlist growing until ffmpeg ends it.
        let writer = Task {
            try await offPool {
                try ffmpeg.run(
                    [
                        "-nostdin", "-v", "error", "-y", "-re", "-f", "lavfi", "-i",
                        "testsrc2=size=320x240:rate=25:duration=6", "-c:v", "mpeg2video", "-q:v", "4", "-g", "25",
                        "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", "-hls_playlist_type", "event",
                        "-hls_segment_filename", "\(www)/live%d.ts", "\(www)/live.m3u8",
                    ], timeout: 60)
            }
        }
        let playlist = fixture.www.appendingPathComponent("live.m3u8")
        for _ in 0..<100 {
            let text = (try? String(contentsOf: playlist, encoding: .utf8)) ?? ""
            if LivePlaylistFile.segments(in: Data(text.utf8)) >= 2 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let proxied = try await offPool {
            try ffmpeg.run(
                [
                    "-nostdin", "-v", "error", "-live_start_index", "0", "-i",
                    try fixture.proxyURL("live.m3u8")
                        .absoluteString, "-f", "framemd5", "-",
                ], timeout: 60)
        }
        let written = try await writer.value
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(proxied.status, 0, proxied.stderr)
        let text = try String(contentsOf: playlist, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("#EXT-X-ENDLIST\n"), text)

        // Every request of that play reached the origin through the cache, each segment once.
        let requests = try fixture.nginx.accessLog()
        XCTAssertEqual(requests.filter { ($0.userAgent ?? "").contains("Lavf") }.map(\.path), [])
        let segments = requests.filter { $0.path.hasSuffix(".ts") }.map(\.path)
        XCTAssertEqual(segments.count, Set(segments).count, "\(segments)")

        let direct = try await decode(fixture.originURL("live.m3u8"), ffmpeg)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        XCTAssertGreaterThan(direct.frames, 100)
        XCTAssertTrue(proxied.stdoutText == direct.framemd5, "the live play's frames differ from the finished stream's")
    }

    private static func fetch(_ url: URL) async throws -> (status: Int, headers: [String: String], body: Data) {
        try await offPool { try Curl.fetch(url) }
    }
}

/// A live media playlist the test publishes segment by segment (the segments themselves are never fetched).
private struct LivePlaylistFile {
    let file: URL

    init(_ file: URL) { self.file = file }

    func publish(_ segments: Int, ended: Bool = false) throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
        for index in 0..<segments { text += "#EXTINF:1,\nlive\(index).ts\n" }
        if ended { text += "#EXT-X-ENDLIST\n" }
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    static func segments(in body: Data) -> Int {
        String(decoding: body, as: UTF8.self).components(separatedBy: "#EXTINF").count - 1
    }
}

/// The proxy's log records, collected from its threads.
final class LogRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var records: [ProxyLogRecord] = []

    func add(_ record: ProxyLogRecord) { lock.withLock { records.append(record) } }

    var all: [ProxyLogRecord] { lock.withLock { records } }
}
