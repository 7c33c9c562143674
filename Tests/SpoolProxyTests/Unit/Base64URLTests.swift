import Foundation
import XCTest

@testable import SpoolProxy

/// `Base64URL` against Foundation's base64 with the URL alphabet swapped in, which it replaced.
final class Base64URLTests: XCTestCase {
    /// Foundation's encoding of `bytes`, made URL-safe the way the proxy made it before.
    private static func foundationEncoding(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testEveryLengthAndEveryByteEncodesAsFoundationDidAndDecodesBack() throws {
        var random = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = (0...64).map { length in
            (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        samples.append(Array(0...255))
        samples.append([0xFB, 0xFF, 0xBF])  // `-` and `_` in every position of a group
        for bytes in samples {
            let encoded = Base64URL.encode(bytes)
            XCTAssertEqual(encoded, Self.foundationEncoding(bytes), "\(bytes.count) bytes")
            XCTAssertFalse(encoded.contains("="))
            XCTAssertEqual(Base64URL.decode(Substring(encoded)), bytes, "\(bytes.count) bytes")
        }
    }

    func testAnURLsTextSurvivesTheProxysEncoding() throws {
        let text = "https://example.com/%D0%BF%D0%B5%D1%81%D0%BD%D1%8F.mp3?a=b&c=d~é"
        let encoded = ProxyURLMapping.base64URL(text)
        XCTAssertEqual(ProxyURLMapping.decodeBase64URL(Substring(encoded)), text)
    }

    func testTextOutsideTheAlphabetOrOfAnImpossibleLengthDecodesToNothing() {
        for bad in ["ab+c", "ab/c", "abc=", "YQ==", "a", "abcde", "ab c", "ab\u{e9}c", "ab.c"] {
            XCTAssertNil(Base64URL.decode(Substring(bad)), bad)
        }
        XCTAssertEqual(Base64URL.decode(""), [])
        // Bytes that are not UTF-8 decode, but are no URL's text.
        XCTAssertNil(ProxyURLMapping.decodeBase64URL(Substring(Base64URL.encode([0xFF, 0xFE]))))
    }
}
