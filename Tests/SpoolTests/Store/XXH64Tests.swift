import Foundation
import XCTest

@testable import Spool

/// XXH64 against the reference implementation (`xxhsum -H1` from Debian's xxhash 0.8), whole and fed in pieces.
final class XXH64Tests: XCTestCase {
    /// Bytes `(i * 7 + 3) % 251`, the pattern the reference values below were computed over.
    private static func pattern(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(($0 * 7 + 3) % 251) })
    }

    private static func hash(_ data: Data) -> UInt64 {
        var hasher = XXH64()
        hasher.update(data)
        return hasher.digest()
    }

    func testMatchesTheReference() {
        let cases: [(name: String, data: Data, expected: UInt64)] = [
            ("empty", Data(), 0xef46_db37_51d8_e999),
            ("a", Data("a".utf8), 0xd24e_c4f1_a98c_6e5b),
            ("abc", Data("abc".utf8), 0x44bc_2cf5_ad77_0999),
            ("spool", Data("spool".utf8), 0x4b52_9c5f_597e_180a),
            ("31 bytes: no full stripe", Self.pattern(31), 0xa2aa_5f33_cc4a_6119),
            ("32 bytes: one stripe", Self.pattern(32), 0x23c3_c17e_f790_fd97),
            ("37 bytes: a stripe, a word and a byte", Self.pattern(37), 0xef6a_b673_b99c_b960),
            ("1000 bytes", Self.pattern(1000), 0x021f_7a74_2408_5ea4),
        ]
        for test in cases {
            XCTAssertEqual(Self.hash(test.data), test.expected, test.name)
        }
    }

    func testFedInPiecesEqualsFedWhole() {
        let data = Self.pattern(70_001)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            var hasher = XXH64()
            var offset = 0
            var copies: [(XXH64, Int)] = []
            while offset < data.count {
                let size = min(data.count - offset, Int.random(in: 0...100, using: &generator))
                hasher.update(data.subdata(in: offset..<offset + size))
                offset += size
                if Int.random(in: 0..<50, using: &generator) == 0 { copies.append((hasher, offset)) }
            }
            XCTAssertEqual(hasher.digest(), Self.hash(data))
            // A copy finished part-way is the hash of the bytes it had; the original went on unaffected.
            for (copy, length) in copies { XCTAssertEqual(copy.digest(), Self.hash(data.prefix(length))) }
        }
    }
}
