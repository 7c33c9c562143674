import Foundation
import XCTest

@testable import Spool

final class CacheKeysTests: XCTestCase {
    func testKeysAreThePolicysAndEachURLIsKeyedOnceWhileRemembered() throws {
        let calls = LockedBox(0)
        let policy = CacheKeyPolicy { url in
            calls.withLock { $0 += 1 }
            return url.host ?? ""
        }
        let keys = CacheKeys(policy: policy, capacity: 2)
        let first = try XCTUnwrap(URL(string: "https://a.example.com/x.mp4"))
        let second = try XCTUnwrap(URL(string: "https://b.example.com/x.mp4"))
        let third = try XCTUnwrap(URL(string: "https://c.example.com/x.mp4"))

        XCTAssertEqual(keys.key(for: first), policy.key(for: first))
        XCTAssertEqual(keys.key(for: first), policy.key(for: first))
        XCTAssertEqual(keys.key(for: second), policy.key(for: second))
        // Two calls of the test's own `policy.key` plus one each for the two URLs the memo keyed.
        XCTAssertEqual(calls.withLock { $0 }, 5)

        // Past its capacity the memo starts afresh and keys again, with the same results.
        XCTAssertEqual(keys.key(for: third), policy.key(for: third))
        XCTAssertEqual(keys.key(for: first), policy.key(for: first))
        XCTAssertEqual(calls.withLock { $0 }, 9)
        XCTAssertNotEqual(keys.key(for: first), keys.key(for: third))
    }

    func testDefaultPolicyKeysIgnoreCredentials() throws {
        let keys = CacheKeys(policy: .default)
        let signed = try XCTUnwrap(URL(string: "https://cdn.example.com/v.mp4?token=abc&q=1"))
        let resigned = try XCTUnwrap(URL(string: "https://cdn.example.com/v.mp4?token=xyz&q=1"))
        let other = try XCTUnwrap(URL(string: "https://cdn.example.com/v.mp4?q=2"))
        XCTAssertEqual(keys.key(for: signed), keys.key(for: resigned))
        XCTAssertNotEqual(keys.key(for: signed), keys.key(for: other))
        XCTAssertEqual(keys.key(for: other), CacheKeyPolicy.default.key(for: other))
    }
}
