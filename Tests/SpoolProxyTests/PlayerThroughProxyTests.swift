import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// Real players (ffmpeg, ffprobe) through the proxy, compared with the same players reading nginx directly:
/// every decoded frame's checksum must match, first with the origin up, then with it stopped and a fresh
/// proxy and cache on the same directory serving from the index alone, and over the whole session the
/// proxy's origin sends each file about once.
final class PlayerThroughProxyTests: XCTestCase {
    func testMP3DecodesIdenticallyThroughProxyOnlineAndOffline() async throws {
        try await checkPlayers(on: .mp3)
    }

    func testMoovAtEndMP4DecodesIdenticallyThroughProxyOnlineAndOffline() async throws {
        try await checkPlayers(on: .moovAtEndMP4)
    }

    private func checkPlayers(on medium: Medium) async throws {
        let tools = try Tools()
        let counter = ServedCounter()
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(log: { record in counter.add(record) }))
        let file = fixture.www.appendingPathComponent(medium.name)
        let generation = try await offPool { try tools.ffmpeg.run(medium.generationArguments + [file.path]) }
        XCTAssertEqual(generation.status, 0, "ffmpeg could not generate \(medium.name): \(generation.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        let size = try XCTUnwrap(attributes[.size] as? NSNumber).int64Value
        if medium.isMP4 { try assertMoovAfterMdat(in: file) }

        // Direct decodes read a second nginx over the same directory, so the proxy's origin log holds the
        // proxy's traffic only.
        let direct = try NginxOrigin(serving: fixture.www)
        addTeardownBlock { direct.stop() }
        let directURL = direct.url(for: medium.name)
        let proxyURL = try fixture.proxyURL(medium.name)
        let started = Date()

        // Online: the proxy decodes first, so the cold cache sees the player's real access pattern (for
        // the mp4: the head, then the moov at the end, then the mdat from the start).
        var reference: [Double?: Decode] = [:]
        for seek in medium.seeks {
            let proxied = try await decode(proxyURL, seek: seek, tools: tools)
            let original = try await decode(directURL, seek: seek, tools: tools)
            XCTAssertEqual(original.status, 0, "direct decode, \(describe(seek)): \(original.stderr)")
            XCTAssertGreaterThan(original.frames, 100, "the direct decode produced frames")
            assertSameDecode(proxied, original, "online, \(describe(seek))")
            reference[seek] = original
        }
        let whole = try XCTUnwrap(reference[nil])
        for seek in medium.seeks.compactMap({ $0 }) {
            // The input seek really skipped something: fewer frames than the whole decode.
            XCTAssertLessThan(try XCTUnwrap(reference[seek]).frames, whole.frames, "-ss \(seek) decodes fewer frames")
        }
        let directProbe = try await probe(directURL, tools: tools)
        try assertProbe(directProbe, describes: medium, size: size)
        let onlineProbe = try await probe(proxyURL, tools: tools)
        XCTAssertEqual(onlineProbe.stdoutText, directProbe.stdoutText, "ffprobe through the proxy, online")
        let directHead = try await Curl.fetch(directURL, ["--head"])
        let onlineDuration = Date().timeIntervalSince(started)

        // Offline: every reader of the cache finished, the origin is gone, and a new cache and proxy on the
        // same directory know the resource only from the index.
        await fixture.proxy.stop()
        await fixture.cache.close()
        fixture.nginx.stop()
        let originBytes = try fixture.nginx.totalBodyBytesSent()
        let originRequests = try fixture.nginx.accessLog().count
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: fixture.cacheDirectory))
        let proxy = SpoolProxy(cache: cache, configuration: ProxyConfiguration(log: { record in counter.add(record) }))
        try await proxy.start()
        addTeardownBlock {
            await proxy.stop()
            await cache.close()
        }
        let offlineStarted = Date()
        let offlineURL = try proxy.url(for: fixture.originURL(medium.name))
        let head = try await Curl.fetch(offlineURL, ["--head"])
        XCTAssertEqual(head.status, 200, "HEAD offline")
        XCTAssertEqual(head.headers["content-type"], medium.contentType)
        XCTAssertEqual(head.headers["content-type"], directHead.headers["content-type"])
        XCTAssertEqual(head.headers["content-length"], "\(size)")
        XCTAssertEqual(head.headers["x-spool-cache"], "hit", "offline, every byte is on disk")
        for seek in medium.seeks {
            let offline = try await decode(offlineURL, seek: seek, tools: tools)
            assertSameDecode(offline, try XCTUnwrap(reference[seek]), "offline, \(describe(seek))")
        }
        let offlineProbe = try await probe(offlineURL, tools: tools)
        XCTAssertEqual(offlineProbe.stdoutText, directProbe.stdoutText, "ffprobe through the proxy, offline")
        let offlineDuration = Date().timeIntervalSince(offlineStarted)

        let ratio = Double(originBytes) / Double(size)
        let served = counter.totals
        print(
            """
            [players] \(medium.name): \(size) bytes, \(medium.seeks.count) decodes + ffprobe online and offline; \
            \(whole.frames) frames in the whole decode; the proxies answered \(served.requests) requests \
            and wrote \(served.bytes) body bytes to sockets (players drop connections to seek); origin sent \
            \(originBytes) \
            body bytes in \(originRequests) requests, ratio \(String(format: "%.4f", ratio)); \
            online \(String(format: "%.1f", onlineDuration)) s, offline \(String(format: "%.1f", offlineDuration)) s
            """)
        // The whole file was decoded online, so the origin sent at least all of it (this also shows the log
        // is read), and shared and cached reads kept it at most 5 % above.
        XCTAssertGreaterThanOrEqual(originBytes, size)
        XCTAssertLessThanOrEqual(ratio, 1.05, "origin body bytes over the session: \(originBytes) for \(size)")
    }

    // MARK: - Players

    private func describe(_ seek: Double?) -> String {
        seek.map { "-ss \($0)" } ?? "whole file"
    }

    private struct Decode: Sendable {
        var status: Int32
        var framemd5: String
        var stderr: String
        /// Frame lines (not `#` comments) in the framemd5 output.
        var frames: Int { framemd5.split(separator: "\n").filter { !$0.hasPrefix("#") }.count }
    }

    /// `ffmpeg -v error [-ss S] -i URL -f framemd5 -`.
    private func decode(_ url: URL, seek: Double?, tools: Tools) async throws -> Decode {
        var arguments = ["-nostdin", "-v", "error"]
        if let seek { arguments += ["-ss", "\(seek)"] }
        arguments += ["-i", url.absoluteString, "-f", "framemd5", "-"]
        let output = try await offPool { [arguments] in try tools.ffmpeg.run(arguments, timeout: 120) }
        return Decode(status: output.status, framemd5: output.stdoutText, stderr: output.stderr)
    }

    private func assertSameDecode(
        _ decode: Decode, _ reference: Decode, _ context: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(decode.status, 0, "\(context): \(decode.stderr)", file: file, line: line)
        XCTAssertEqual(decode.stderr, reference.stderr, "\(context): ffmpeg's complaints", file: file, line: line)
        XCTAssertEqual(decode.frames, reference.frames, "\(context): frame count", file: file, line: line)
        // Not XCTAssertEqual: two thousand lines of checksums would drown the message.
        XCTAssertTrue(
            decode.framemd5 == reference.framemd5, "\(context): frame checksums differ", file: file, line: line)
    }

    /// ffprobe's JSON for format name, duration, size and streams (no file name, so direct and proxied
    /// outputs are comparable byte for byte).
    private func probe(_ url: URL, tools: Tools) async throws -> ExternalCommand.Output {
        let arguments = [
            "-v", "error", "-of", "json",
            "-show_entries", "format=format_name,duration,size:stream=index,codec_type,codec_name,duration",
            url.absoluteString,
        ]
        let output = try await offPool { try tools.ffprobe.run(arguments, timeout: 60) }
        XCTAssertEqual(output.status, 0, "ffprobe \(url): \(output.stderr)")
        return output
    }

    private func assertProbe(_ output: ExternalCommand.Output, describes medium: Medium, size: Int64) throws {
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
        let format = try XCTUnwrap(json["format"] as? [String: Any])
        XCTAssertEqual(format["format_name"] as? String, medium.formatName)
        XCTAssertEqual(format["size"] as? String, "\(size)")
        let duration = try XCTUnwrap(Double(format["duration"] as? String ?? ""))
        XCTAssertEqual(duration, medium.duration, accuracy: 0.5)
        let streams = try XCTUnwrap(json["streams"] as? [[String: Any]])
        XCTAssertEqual(streams.compactMap { $0["codec_type"] as? String }, medium.streamTypes)
    }

    /// The top-level boxes of an MP4 in order; asserts `moov` comes after `mdat`.
    private func assertMoovAfterMdat(in file: URL) throws {
        let boxes = try MediaSamples.topLevelBoxes(of: file).map(\.type)
        let mdat = try XCTUnwrap(boxes.firstIndex(of: "mdat"), "boxes: \(boxes)")
        let moov = try XCTUnwrap(boxes.firstIndex(of: "moov"), "boxes: \(boxes)")
        XCTAssertGreaterThan(moov, mdat, "moov must follow mdat; top-level boxes: \(boxes)")
    }
}

/// The two test media, generated by ffmpeg from lavfi sources.
private struct Medium: Sendable {
    var name: String
    var isMP4: Bool
    /// Arguments before the output path.
    var generationArguments: [String]
    var seeks: [Double?]
    var contentType: String
    var formatName: String
    var duration: Double
    var streamTypes: [String]

    /// 60 s of sine, libmp3lame at 128 kb/s (about 960 kB).
    static let mp3 = Medium(
        name: "tone.mp3", isMP4: false,
        generationArguments: [
            "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=60",
            "-c:a", "libmp3lame", "-b:a", "128k",
        ],
        seeks: [nil, 10, 42.5], contentType: "audio/mpeg", formatName: "mp3", duration: 60, streamTypes: ["audio"])

    /// 24 s of noisy test pattern and sine. The mp4 muxer without `+faststart` writes `moov` after `mdat`;
    /// the noise keeps the file at several megabytes, so the player's jumps are real.
    static let moovAtEndMP4 = Medium(
        name: "clip.mp4", isMP4: true,
        generationArguments: [
            "-nostdin", "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=24",
            "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=24",
            "-vf", "noise=alls=12:allf=t",
        ] + (MediaSamples.hasX264 ? ["-c:v", "libx264", "-preset", "ultrafast"] : ["-c:v", "mpeg4", "-q:v", "4"]) + [
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest", "-f", "mp4",
        ],
        seeks: [nil, 10, 17.5], contentType: "video/mp4", formatName: "mov,mp4,m4a,3gp,3g2,mj2", duration: 24,
        streamTypes: ["video", "audio"])
}

/// ffmpeg and ffprobe, or a skip when they are missing.
private struct Tools: Sendable {
    let ffmpeg: ExternalCommand
    let ffprobe: ExternalCommand

    init() throws {
        guard let ffmpeg = ExternalCommand(named: "ffmpeg"), let ffprobe = ExternalCommand(named: "ffprobe") else {
            throw ExternalCommand.Failure(description: "ffmpeg and ffprobe are not installed; .ci/run installs them")
        }
        self.ffmpeg = ffmpeg
        self.ffprobe = ffprobe
    }
}

/// Requests the proxies answered and the body bytes they logged as written to sockets, including bytes a
/// player never read before dropping the connection to seek.
private final class ServedCounter: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var requests = 0
    private var bytes: Int64 = 0

    func add(_ record: ProxyLogRecord) {
        lock.lock()
        defer { lock.unlock() }
        requests += 1
        bytes += record.bodyBytes
    }

    var totals: (requests: Int, bytes: Int64) {
        lock.lock()
        defer { lock.unlock() }
        return (requests, bytes)
    }
}
