import Foundation
import SpoolAVFoundation
import XCTest

final class SpoolURLSchemeTests: XCTestCase {
    func testRewriteIsReversibleForAnyHTTPURL() throws {
        let samples = [
            "https://cdn.example.com/a/b/track.mp3",
            "http://127.0.0.1:8080/media/file.mp4?token=abc&x=1#frag",
            "https://example.com:8443/path%20with%20spaces/na%C3%AFve.m4a?q=%2F%3F%26",
            "https://user:pass@example.com/private.mp3",
            "https://例え.jp/音楽/曲.mp3?名前=値",
            "HTTPS://EXAMPLE.COM/UPPER.MP3",
        ]
        for text in samples {
            let url = try XCTUnwrap(URL(string: text), text)
            let wrapped = try XCTUnwrap(SpoolURLScheme.wrap(url), text)
            let scheme = try XCTUnwrap(wrapped.scheme)
            XCTAssertNotNil(
                scheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression),
                "scheme \(scheme) must be RFC 3986 letters")
            XCTAssertTrue(scheme.hasPrefix(SpoolURLScheme.prefix))
            XCTAssertNotEqual(scheme, "http")
            XCTAssertNotEqual(scheme, "https")
            let back = try XCTUnwrap(SpoolURLScheme.unwrap(wrapped), text)
            XCTAssertEqual(back.absoluteString.lowercased(), url.absoluteString.lowercased(), text)
            XCTAssertEqual(back.host, url.host)
            XCTAssertEqual(back.port, url.port)
            XCTAssertEqual(back.query, url.query)
            XCTAssertEqual(back.path, url.path)
        }
        XCTAssertNil(SpoolURLScheme.unwrap(URL(string: "https://example.com/a.mp3")!))
        XCTAssertNil(SpoolURLScheme.wrap(URL(string: "spool-https://example.com/a.mp3")!))
    }
}

final class UniformTypeMappingTests: XCTestCase {
    func testDesignTableAndExtensionFallback() {
        let url = URL(string: "https://example.com/file")!
        let table: [String: String] = [
            "audio/mpeg": "public.mp3", "audio/mp4": "public.mpeg-4-audio", "audio/x-m4a": "com.apple.m4a-audio",
            "video/mp4": "public.mpeg-4", "video/quicktime": "com.apple.quicktime-movie",
            "video/x-m4v": "com.apple.m4v-video", "audio/aac": "public.aac-audio",
            "audio/wav": "com.microsoft.waveform-audio", "audio/x-wav": "com.microsoft.waveform-audio",
            "audio/x-aiff": "public.aiff-audio", "audio/flac": "org.xiph.flac",
            "application/vnd.apple.mpegurl": "public.m3u-playlist", "audio/mpegurl": "public.m3u-playlist",
            "video/mp2t": "public.mpeg-2-transport-stream",
        ]
        for (mime, uti) in table {
            XCTAssertEqual(UniformTypeMapping.uniformType(mimeType: mime, url: url), uti, mime)
            XCTAssertEqual(UniformTypeMapping.uniformType(mimeType: mime.uppercased() + "; charset=x", url: url), uti)
        }
        let mp3 = URL(string: "https://example.com/song.MP3?x=1")!
        XCTAssertEqual(UniformTypeMapping.uniformType(mimeType: "application/octet-stream", url: mp3), "public.mp3")
        XCTAssertEqual(
            UniformTypeMapping.uniformType(mimeType: nil, url: URL(string: "https://e.com/v.mov")!),
            "com.apple.quicktime-movie")
        XCTAssertNil(UniformTypeMapping.uniformType(mimeType: "application/octet-stream", url: url))
    }
}
