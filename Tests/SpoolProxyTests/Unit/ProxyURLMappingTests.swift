import Foundation
import XCTest

@testable import SpoolProxy

final class ProxyURLMappingTests: XCTestCase {
    private let mapping = ProxyURLMapping(host: "127.0.0.1", port: 8080)

    private func roundTrip(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let origin = try XCTUnwrap(URL(string: text), file: file, line: line)
        let proxied = try mapping.proxyURL(for: origin)
        XCTAssertEqual(proxied.host, "127.0.0.1", file: file, line: line)
        XCTAssertEqual(proxied.port, 8080, file: file, line: line)
        let target = try XCTUnwrap(URLComponents(url: proxied, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        let back = try ProxyURLMapping.originURL(forRequestTarget: target)
        XCTAssertEqual(back.absoluteString, origin.absoluteString, file: file, line: line)
        return proxied
    }

    func testEveryKindOfURLSurvivesTheRoundTrip() throws {
        let urls = [
            "https://cdn.example.com/media/song.mp3",
            "http://127.0.0.1:8081/a/b/c.mp4?token=abc&X-Amz-Signature=%2F%2B%3D&empty=",
            "https://example.com/My%20Song%20%231.mp3?q=a%26b#fragment",
            "https://example.com/%D0%BF%D0%B5%D1%81%D0%BD%D1%8F.mp3",
            "https://user:secret@example.com:8443/path;params/file.m4a?x=1",
            "https://[::1]:9000/v.mp4",
            "https://example.com/",
            "https://example.com",
            "https://example.com/dir/?list=1",
            "https://example.com/a/../b/./c.mp3",
            "https://example.com/o/aGVsbG8/x.mp3",
        ]
        for text in urls { _ = try roundTrip(text) }
    }

    func testNonASCIIOriginURLRoundTrips() throws {
        // Foundation percent-encodes what URL(string:) is given; the mapping keeps that text exactly.
        guard let origin = URL(string: "https://例え.jp/音楽/曲.mp3?名前=値") else { return }
        let proxied = try mapping.proxyURL(for: origin)
        let target = try XCTUnwrap(URLComponents(url: proxied, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        XCTAssertEqual(try ProxyURLMapping.originURL(forRequestTarget: target), origin)
        XCTAssertTrue(proxied.absoluteString.allSatisfy(\.isASCII))
    }

    func testTheFileNameAndExtensionEndThePath() throws {
        XCTAssertTrue(try roundTrip("https://cdn.example.com/media/song.mp3?sig=1").path.hasSuffix("/song.mp3"))
        XCTAssertEqual(try roundTrip("https://example.com/My%20Song.m4a").lastPathComponent, "My Song.m4a")
        XCTAssertEqual(try roundTrip("https://example.com/dir/").lastPathComponent, "index")
        XCTAssertEqual(try roundTrip("https://example.com/v.mp4").pathExtension, "mp4")
    }

    func testOnlyHTTPAndHTTPSOrigins() {
        for text in ["file:///etc/passwd", "ftp://example.com/a.mp3", "javascript:alert(1)", "data:text/plain,hi"] {
            let url = URL(string: text)!
            XCTAssertThrowsError(try mapping.proxyURL(for: url), text)
            let smuggled = "/o/\(ProxyURLMapping.base64URL(text))/a.mp3"
            XCTAssertThrowsError(try ProxyURLMapping.originURL(forRequestTarget: smuggled), text) { error in
                guard case .unsupportedScheme = error as? ProxyURLError else { return XCTFail("\(error)") }
            }
        }
    }

    func testMalformedTargetsAreRejected() {
        let targets = [
            "/", "/o", "/o/", "/o//a.mp3", "/x/aHR0cDovL2EuY29t/a.mp3", "/../../etc/passwd",
            "/o/%2e%2e%2f%2e%2e%2fetc%2fpasswd/a", "/o/!!!!/a.mp3", "/o/aHR0cDovL2EuY29t=/a.mp3",
            "o/aHR0cDovL2EuY29t/a.mp3", "/o/\(ProxyURLMapping.base64URL("not a url"))/a",
            "/o/\(ProxyURLMapping.base64URL("http:///nohost"))/a",
        ]
        for target in targets {
            XCTAssertThrowsError(try ProxyURLMapping.originURL(forRequestTarget: target), target)
        }
    }

    func testAbsoluteFormAndProxyQueryAreAccepted() throws {
        let encoded = ProxyURLMapping.base64URL("https://example.com/a.mp3?t=1")
        XCTAssertEqual(
            try ProxyURLMapping.originURL(forRequestTarget: "http://127.0.0.1:8080/o/\(encoded)/a.mp3").absoluteString,
            "https://example.com/a.mp3?t=1")
        XCTAssertEqual(
            try ProxyURLMapping.originURL(forRequestTarget: "/o/\(encoded)/a.mp3?cachebuster=2").absoluteString,
            "https://example.com/a.mp3?t=1")
    }

    func testRelativeReferencesResolveBesideTheOriginLikeHLSSegments() throws {
        let encoded = ProxyURLMapping.base64URL("https://cdn.example.com/live/index.m3u8?token=1")
        XCTAssertEqual(
            try ProxyURLMapping.originURL(forRequestTarget: "/o/\(encoded)/seg-001.ts").absoluteString,
            "https://cdn.example.com/live/seg-001.ts")
        XCTAssertEqual(
            try ProxyURLMapping.originURL(forRequestTarget: "/o/\(encoded)/720p/seg-001.ts").absoluteString,
            "https://cdn.example.com/live/720p/seg-001.ts")
        XCTAssertEqual(
            try ProxyURLMapping.originURL(forRequestTarget: "/o/\(encoded)/index.m3u8").absoluteString,
            "https://cdn.example.com/live/index.m3u8?token=1")
    }

    func testRelativeReferencesCannotLeaveTheOriginHost() {
        let encoded = ProxyURLMapping.base64URL("https://cdn.example.com/live/index.m3u8")
        for tail in ["/evil.example.com/x.ts", "//evil.example.com/x.ts", "http://evil.example.com/x.ts", "https:evil"]
        {
            XCTAssertThrowsError(try ProxyURLMapping.originURL(forRequestTarget: "/o/\(encoded)/\(tail)"), tail)
        }
    }
}
