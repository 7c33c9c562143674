import Foundation
import XCTest

@testable import SpoolProxy

final class ProxyURLMappingTests: XCTestCase {
    private let key = ProxyURLKey()
    private var mapping: ProxyURLMapping { ProxyURLMapping(host: "127.0.0.1", port: 8080, key: key) }
    private var signer: URLSigner { mapping.signer }

    /// A target for `origin` signed with this test's key, `tail` after the encoded origin.
    private func signed(_ origin: String, kind: String = "o", tail: String = "a.mp3") -> String {
        let encoded = ProxyURLMapping.base64URL(origin)
        return "/\(kind)/\(signer.proof(for: Substring(encoded), kind: Substring(kind)))/\(encoded)/\(tail)"
    }

    private func origin(_ target: String) throws -> URL {
        try ProxyURLMapping.originURL(forRequestTarget: target, signer: signer)
    }

    private func roundTrip(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let origin = try XCTUnwrap(URL(string: text), file: file, line: line)
        let proxied = try mapping.proxyURL(for: origin)
        XCTAssertEqual(proxied.host, "127.0.0.1", file: file, line: line)
        XCTAssertEqual(proxied.port, 8080, file: file, line: line)
        let target = try XCTUnwrap(URLComponents(url: proxied, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        let back = try self.origin(target)
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
        XCTAssertEqual(try self.origin(target), origin)
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
            let smuggled = signed(text)
            XCTAssertThrowsError(try origin(smuggled), text) { error in
                guard case .unsupportedScheme = error as? ProxyURLError else { return XCTFail("\(error)") }
            }
        }
    }

    func testMalformedTargetsAreRejected() {
        let proof = signer.proof(for: "aHR0cDovL2EuY29t", kind: "o")
        let junk = signer.proof(for: "!!!!", kind: "o")
        let targets = [
            "/", "/o", "/o/", "/o//a.mp3", "/x/\(proof)/aHR0cDovL2EuY29t/a.mp3", "/../../etc/passwd",
            "/o/%2e%2e%2f%2e%2e%2fetc%2fpasswd/a", "/o/\(junk)/!!!!/a.mp3", "/o/\(proof)/aHR0cDovL2EuY29t=/a.mp3",
            "o/\(proof)/aHR0cDovL2EuY29t/a.mp3", signed("not a url"), signed("http:///nohost"),
            "/o/aHR0cDovL2EuY29t/a.mp3",
        ]
        for target in targets {
            XCTAssertThrowsError(try origin(target), target)
        }
    }

    func testAbsoluteFormAndProxyQueryAreAccepted() throws {
        let target = signed("https://example.com/a.mp3?t=1")
        XCTAssertEqual(try origin("http://127.0.0.1:8080" + target).absoluteString, "https://example.com/a.mp3?t=1")
        XCTAssertEqual(try origin(target + "?cachebuster=2").absoluteString, "https://example.com/a.mp3?t=1")
    }

    func testRelativeReferencesResolveBesideTheOriginLikeHLSSegments() throws {
        let playlist = "https://cdn.example.com/live/index.m3u8?token=1"
        XCTAssertEqual(
            try origin(signed(playlist, tail: "seg-001.ts")).absoluteString, "https://cdn.example.com/live/seg-001.ts")
        XCTAssertEqual(
            try origin(signed(playlist, tail: "720p/seg-001.ts")).absoluteString,
            "https://cdn.example.com/live/720p/seg-001.ts")
        XCTAssertEqual(try origin(signed(playlist, tail: "index.m3u8")).absoluteString, playlist)
    }

    /// A relative reference stays in the signed URL's directory or below, on its host: never a parent directory
    /// (`..`, raw or encoded), an encoded slash or backslash, an absolute path or another server.
    func testRelativeReferencesCannotLeaveTheOriginDirectory() {
        let playlist = "https://cdn.example.com/live/index.m3u8"
        let tails = [
            "/evil.example.com/x.ts", "//evil.example.com/x.ts", "http://evil.example.com/x.ts", "https:evil",
            "../secret.ts", "a/../../secret.ts", "%2e%2e/secret.ts", "%2E%2E/secret.ts", "./x.ts", "a%2f..%2fb.ts",
            "a%5c..%5cb.ts", "a//b.ts", "dir/",
        ]
        for tail in tails {
            XCTAssertThrowsError(try origin(signed(playlist, tail: tail)), tail)
        }
    }

    /// Only a proof this proxy's key made for this very origin URL and kind passes: changed, cut short, from
    /// another key, moved to another origin URL or kind, or missing, it is refused as forged.
    func testForgedProofsAreRefused() throws {
        let song = "https://cdn.example.com/a/song.mp3"
        let good = signed(song, tail: "song.mp3")
        XCTAssertEqual(try origin(good).absoluteString, song)
        let encoded = ProxyURLMapping.base64URL(song)
        let proof = signer.proof(for: Substring(encoded), kind: "o")
        XCTAssertEqual(proof.count, URLSigner.proofLength)
        let flipped = String(proof.dropLast()) + (proof.last == "A" ? "B" : "A")
        let other = URLSigner(key: ProxyURLKey()).proof(for: Substring(encoded), kind: "o")
        let forged = [
            "/o/\(flipped)/\(encoded)/song.mp3", "/o/\(proof.dropLast())/\(encoded)/song.mp3",
            "/o/\(other)/\(encoded)/song.mp3", "/o/\(proof)/\(ProxyURLMapping.base64URL(song + "?x"))/song.mp3",
            "/w/\(proof)/\(encoded)/song.mp3", "/k/\(proof)/\(encoded)/song.mp3", "/o/x/\(encoded)/song.mp3",
        ]
        for target in forged {
            XCTAssertThrowsError(try origin(target), target) { error in
                XCTAssertEqual(error as? ProxyURLError, .forged, target)
            }
        }
        XCTAssertThrowsError(
            try ProxyURLMapping.originURL(forRequestTarget: good, signer: URLSigner(key: ProxyURLKey())))
    }
}
