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
