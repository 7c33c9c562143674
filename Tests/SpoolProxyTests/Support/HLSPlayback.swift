import Foundation
import SpoolTesting
import XCTest

/// Playing HLS with ffmpeg in the proxy's tests: generating streams into the origin's directory, playing them
/// directly and through the proxy, comparing decoded frames.
extension XCTestCase {
    static func ffmpeg() throws -> ExternalCommand {
        guard let ffmpeg = ExternalCommand(named: "ffmpeg") else {
            throw ExternalCommand.Failure(description: "ffmpeg is not installed; .ci/run installs it")
        }
        return ffmpeg
    }

    /// Runs ffmpeg with `arguments` (writing a stream into the origin's directory) and checks it succeeded.
    func generate(with ffmpeg: ExternalCommand, _ arguments: [String]) async throws {
        let generation = try await offPool { try ffmpeg.run(arguments, timeout: 120) }
        XCTAssertEqual(generation.status, 0, generation.stderr)
    }

    /// An AES-128 MPEG-TS stream (MPEG-2 video, 2 s segments) in the origin's directory: `playlist`, its
    /// segments named by the ffmpeg pattern `segments` (`seg%d.ts`), and the key `key`, which the playlist
    /// names by an absolute URI; the segments too when `absoluteSegments`. `videoFilter` is an ffmpeg `-vf`.
    func generateEncryptedTS(
        _ fixture: ProxyFixture, _ ffmpeg: ExternalCommand, playlist: String, key: String, segments: String,
        seconds: Int = 6, absoluteSegments: Bool = false, videoFilter: String? = nil
    ) async throws {
        let origin = fixture.nginx.baseURL.absoluteString
        let keyFile = fixture.www.appendingPathComponent(key)
        try Data((0..<16).map { UInt8(($0 * 37 + 11) & 0xFF) }).write(to: keyFile)
        let keyInfo = fixture.www.deletingLastPathComponent().appendingPathComponent("keyinfo-\(key)")
        try "\(origin)/\(key)\n\(keyFile.path)\n".write(to: keyInfo, atomically: true, encoding: .utf8)
        var arguments: [String] = [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
        ]
        if let videoFilter { arguments += ["-vf", videoFilter] }
        arguments += [
            "-c:v", "mpeg2video", "-q:v", "4", "-g", "25", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
            "-hls_playlist_type", "vod", "-hls_key_info_file", keyInfo.path,
        ]
        if absoluteSegments { arguments += ["-hls_base_url", "\(origin)/"] }
        arguments += [
            "-hls_segment_filename", fixture.www.appendingPathComponent(segments).path,
            fixture.www.appendingPathComponent(playlist).path,
        ]
        try await generate(with: ffmpeg, arguments)
    }

    /// A fragmented-MP4 stream in one file (`-hls_flags single_file`: byte ranges of `NAME.m4s`): MPEG-4 video
    /// of `seconds`, with AAC audio when `audio`, segments of `segmentSeconds`.
    func generateSingleFileFMP4(
        _ fixture: ProxyFixture, _ ffmpeg: ExternalCommand, playlist: String, seconds: Int = 6,
        segmentSeconds: Int = 2, audio: Bool = true, initName: String? = nil
    ) async throws {
        var arguments: [String] = [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=\(seconds)",
        ]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=\(seconds)"] }
        arguments += ["-c:v", "mpeg4", "-q:v", "4", "-g", "25"]
        if audio { arguments += ["-c:a", "aac", "-b:a", "64k"] }
        arguments += [
            "-f", "hls", "-hls_time", "\(segmentSeconds)", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
            "-hls_flags", "single_file",
        ]
        if let initName { arguments += ["-hls_fmp4_init_filename", initName] }
        arguments.append(fixture.www.appendingPathComponent(playlist).path)
        try await generate(with: ffmpeg, arguments)
    }

    /// A master `master` of two MPEG-2 video variants, each a `-b:v` bit rate and an optional `-s:v` size (the
    /// picture is 320x240), sharing one AAC audio rendition; media playlists `PREFIX0.m3u8` to `PREFIX2.m3u8`
    /// (the last the audio), segments `PREFIXn_i.ts`.
    func generateMaster(
        _ fixture: ProxyFixture, _ ffmpeg: ExternalCommand, master: String, prefix: String,
        variants: [(bitRate: String, size: String?)]
    ) async throws {
        let www = fixture.www.path
        var encoding: [String] = []
        for (index, variant) in variants.enumerated() {
            encoding += ["-b:v:\(index)", variant.bitRate] + (variant.size.map { ["-s:v:\(index)", $0] } ?? [])
        }
        var arguments: [String] = [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=6",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=6",
            "-map", "0:v", "-map", "0:v", "-map", "1:a", "-c:v", "mpeg2video", "-c:a", "aac", "-b:a", "64k",
        ]
        arguments += encoding
        arguments += [
            "-g", "25", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", master,
            "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,default:yes",
            "-hls_segment_filename", "\(www)/\(prefix)%v_%d.ts", "\(www)/\(prefix)%v.m3u8",
        ]
        try await generate(with: ffmpeg, arguments)
    }

    /// Plays `playlist` directly, then through the proxy: the same frames, and no request of the player's own
    /// reaches the origin. Returns the direct play and the origin's requests during the proxied one.
    func playThroughProxy(_ fixture: ProxyFixture, _ playlist: String, with ffmpeg: ExternalCommand)
        async throws -> (direct: Decode, requests: [NginxLogEntry])
    {
        let direct = try await decode(fixture.originURL(playlist), ffmpeg)
        XCTAssertEqual(direct.status, 0, direct.stderr)
        XCTAssertGreaterThan(direct.frames, 0)
        let before = try fixture.nginx.accessLog().count
        let proxied = try await decode(try fixture.proxyURL(playlist), ffmpeg)
        XCTAssertEqual(proxied.status, 0, proxied.stderr)
        XCTAssertEqual(proxied.frames, direct.frames)
        XCTAssertTrue(proxied.framemd5 == direct.framemd5, "the frames differ from a direct play")
        // Every request of that play reached the origin through the cache, none from the player itself.
        let requests = Array(try fixture.nginx.accessLog().dropFirst(before))
        XCTAssertEqual(requests.filter { ($0.userAgent ?? "").contains("Lavf") }.map(\.path), [])
        return (direct, requests)
    }

    /// Stops the origin and plays `playlist` through the proxy again: the frames of `direct`.
    func assertPlaysOffline(
        _ fixture: ProxyFixture, _ playlist: String, like direct: Decode, with ffmpeg: ExternalCommand
    ) async throws {
        fixture.nginx.stop()
        let offline = try await decode(try fixture.proxyURL(playlist), ffmpeg)
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertTrue(offline.framemd5 == direct.framemd5, "the offline frames differ from a direct play")
    }

    static func size(of file: URL) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    struct Decode {
        var status: Int32
        var framemd5: String
        var stderr: String
        var frames: Int { framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }.count }
    }

    func decode(_ url: URL, _ ffmpeg: ExternalCommand) async throws -> Decode {
        let output = try await offPool {
            try ffmpeg.run(["-nostdin", "-v", "error", "-i", url.absoluteString, "-f", "framemd5", "-"], timeout: 120)
        }
        return Decode(status: output.status, framemd5: output.stdoutText, stderr: output.stderr)
    }
}
