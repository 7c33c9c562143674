import Foundation
import XCTest

@testable import SpoolProxy

/// The proxy's base64url (`ProxyURLMapping.base64URL`, `decodeBase64URL`) against Foundation's base64 with the
/// URL alphabet swapped in by `replacingOccurrences`, which it replaced.
final class Base64URLTests: XCTestCase {
    private static func foundationEncoding(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    func testEveryLengthAndEveryByteEncodesAsFoundationDid() {
        var random = SystemRandomNumberGenerator()
        var samples: [[UInt8]] = (0...64).map { length in
            (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        samples.append(Array(0...255))
        samples.append([0xFB, 0xFF, 0xBF])  // `-` and `_` in every position of a group
        for bytes in samples {
            let encoded = ProxyURLMapping.base64URL(bytes)
            XCTAssertEqual(encoded, Self.foundationEncoding(bytes), "\(bytes.count) bytes")
            XCTAssertFalse(encoded.contains("=") || encoded.contains("+") || encoded.contains("/"))
        }
    }

    func testTextOfEveryLengthSurvivesTheRoundTrip() {
        let text = "https://example.com/%D0%BF%D0%B5%D1%81%D0%BD%D1%8F.mp3?a=b&c=d~é>?"
        for length in 0...text.count {
            let prefix = String(text.prefix(length))
            let encoded = ProxyURLMapping.base64URL(prefix)
            XCTAssertEqual(ProxyURLMapping.decodeBase64URL(Substring(encoded)), prefix)
        }
    }

    func testTextOutsideTheAlphabetOrOfAnImpossibleLengthDecodesToNothing() {
        for bad in ["ab+c", "ab/c", "abc=", "YQ==", "a", "abcde", "ab c", "ab\u{e9}c", "ab.c", "YQ\n"] {
            XCTAssertNil(ProxyURLMapping.decodeBase64URL(Substring(bad)), bad)
        }
        XCTAssertEqual(ProxyURLMapping.decodeBase64URL(""), "")
        // Bytes that are not UTF-8 are no URL's text.
        XCTAssertNil(ProxyURLMapping.decodeBase64URL(Substring(ProxyURLMapping.base64URL([0xFF, 0xFE]))))
    }
}
