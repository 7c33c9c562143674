import Foundation
import Spool
import SpoolTesting
import XCTest

/// Checks of preloaded items, played with ffmpeg through the proxy.
extension ProxyFixture {
    /// Plays the first `seconds` of `name` through the proxy with ffmpeg and checks that the origin was asked
    /// for no byte that was cached before.
    func assertPlaysWithoutRefetching(
        _ name: String, seconds: Int, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let cached = await cache.cachedRanges(for: Resource(url: originURL(name)))
        let logged = try nginx.accessLog().count
        let url = try proxyURL(name)
        let output = try await offPool {
            try MediaSamples.tool("ffmpeg").run(
                ["-nostdin", "-v", "error", "-i", url.absoluteString, "-t", "\(seconds)", "-f", "null", "-"],
                timeout: 60)
        }
        XCTAssertEqual(output.status, 0, "ffmpeg: \(output.stderr)", file: file, line: line)
        let requests = try nginx.accessLog().dropFirst(logged).filter { $0.path == "/\(name)" }
        for request in requests {
            let first = request.range.flatMap { Int64($0.dropFirst("bytes=".count).prefix { $0.isNumber }) } ?? 0
            XCTAssertFalse(
                cached.contains(first), "\(name): the origin was asked for preloaded bytes (\(request.range ?? "all"))",
                file: file, line: line)
        }
    }
}
