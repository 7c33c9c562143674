import Foundation
import Spool
import SpoolTesting
import XCTest

/// GStreamer's HLS demuxer (`hlsdemux2`, through `uridecodebin3`) plays through the proxy: the same decoded
/// frames and audio as a direct play, no request of its own at the origin, and the same again offline.
final class HLSGStreamerTests: XCTestCase {
    func testAnEncryptedStreamWithAbsoluteURIs() async throws {
        let (ffmpeg, gst) = try Self.tools()
        let fixture = try await ProxyFixture(test: self)
        try await generateEncryptedTS(
            fixture, ffmpeg, playlist: "g.m3u8", key: "g.key", segments: "g%d.ts", absoluteSegments: true)
        let direct = try await playBothWays(fixture, "g.m3u8", gst, audio: false)
        XCTAssertEqual(direct.video.count, 150)
        try await assertPlaysOffline(fixture, "g.m3u8", like: direct, gst, audio: false)
    }

    func testFragmentedMP4InOneFileWithByteRanges() async throws {
        let (ffmpeg, gst) = try Self.tools()
        let fixture = try await ProxyFixture(test: self)
        try await generateSingleFileFMP4(fixture, ffmpeg, playlist: "f.m3u8", initName: "f.mp4")
        let direct = try await playBothWays(fixture, "f.m3u8", gst, audio: true)
        XCTAssertEqual(direct.video.count, 150)
        XCTAssertGreaterThan(direct.audio.count, 200)
        try await assertPlaysOffline(fixture, "f.m3u8", like: direct, gst, audio: true)
    }

    func testAMasterWithTwoVariantsAndAnAudioRendition() async throws {
        let (ffmpeg, gst) = try Self.tools()
        let fixture = try await ProxyFixture(test: self)
        try await generateMaster(
            fixture, ffmpeg, master: "m.m3u8", prefix: "m", variants: [("800k", nil), ("200k", "160x120")])
        // `connection-speed` holds the demuxer to the highest variant: adaptive switching would make the
        // frames depend on timing.
        let direct = try await playBothWays(fixture, "m.m3u8", gst, audio: true, connectionSpeed: 100_000)
        XCTAssertEqual(direct.video.count, 150)
        XCTAssertGreaterThan(direct.audio.count, 200)
        let requests = try fixture.nginx.accessLog().map(\.path)
        XCTAssertTrue(requests.contains("/m0_0.ts") && requests.contains("/m2_0.ts"), "\(requests)")
    }

    private static func tools() throws -> (ExternalCommand, ExternalCommand) {
        guard let gst = ExternalCommand(named: "gst-launch-1.0") else {
            throw ExternalCommand.Failure(description: "gst-launch-1.0 is not installed; .ci/run installs it")
        }
        return (try ffmpeg(), gst)
    }

    /// What `checksumsink` printed: one hash per decoded video frame (SHA-1) and audio buffer (MD5), in order.
    private struct Play {
        var status: Int32
        var video: [Substring]
        var audio: [Substring]
        var stderr: String
    }

    private func play(
        _ url: URL, _ gst: ExternalCommand, audio: Bool, connectionSpeed: Int? = nil
    ) async throws -> Play {
        var arguments = ["-q", "uridecodebin3", "uri=\(url.absoluteString)", "name=d"]
        if let connectionSpeed { arguments.append("connection-speed=\(connectionSpeed)") }
        arguments += [
            "d.", "!", "queue", "!", "videoconvert", "!", "video/x-raw,format=I420", "!", "checksumsink", "hash=sha1",
        ]
        if audio {
            arguments += [
                "d.", "!", "queue", "!", "audioconvert", "!", "audio/x-raw,format=F32LE,layout=interleaved", "!",
                "checksumsink", "hash=md5",
            ]
        }
        let command = arguments
        let output = try await offPool { try gst.run(command, timeout: 60) }
        // Video and audio lines interleave differently from run to run: each stream is told by its hash's length.
        let hashes = output.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").last }
        return Play(
            status: output.status, video: hashes.filter { $0.count == 40 }, audio: hashes.filter { $0.count == 32 },
            stderr: output.stderr)
    }

    /// Plays `playlist` directly, then through the proxy: the same frames and audio, and no request of
    /// GStreamer's own at the origin during the proxied play. Returns the direct play.
    private func playBothWays(
        _ fixture: ProxyFixture, _ playlist: String, _ gst: ExternalCommand, audio: Bool, connectionSpeed: Int? = nil
    ) async throws -> Play {
        let direct = try await play(fixture.originURL(playlist), gst, audio: audio, connectionSpeed: connectionSpeed)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        let before = try fixture.nginx.accessLog().count
        let proxied = try await play(
            try fixture.proxyURL(playlist), gst, audio: audio, connectionSpeed: connectionSpeed)
        XCTAssertEqual(proxied.status, 0, proxied.stderr)
        XCTAssertEqual(proxied.video.count, direct.video.count)
        XCTAssertTrue(proxied.video == direct.video, "the frames differ from a direct play")
        XCTAssertTrue(proxied.audio == direct.audio, "the audio differs from a direct play")
        let requests = Array(try fixture.nginx.accessLog().dropFirst(before))
        XCTAssertEqual(requests.filter { ($0.userAgent ?? "").contains("GStreamer") }.map(\.path), [])
        XCTAssertFalse(requests.isEmpty, "the proxied play reached the origin through the cache")
        return direct
    }

    private func assertPlaysOffline(
        _ fixture: ProxyFixture, _ playlist: String, like direct: Play, _ gst: ExternalCommand, audio: Bool
    ) async throws {
        fixture.nginx.stop()
        let offline = try await play(try fixture.proxyURL(playlist), gst, audio: audio)
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertTrue(offline.video == direct.video && offline.audio == direct.audio, "offline play differs")
    }
}
