import Foundation
import XCTest

@testable import Spool

/// An origin's "come back later": what `Retry-After` asks for, and how long a request waits before it is sent
/// again (or gives up, leaving the wait to the player or the transfer scheduler).
final class RetryAfterTests: XCTestCase {
    func testTheWaitAFieldAsksFor() {
        let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let rows: [(field: String, seconds: TimeInterval?)] = [
            ("120", 120), (" 3 ", 3), ("0", 0), ("-1", nil), ("soon", nil),
            ("Sun, 06 Nov 1994 08:50:37 GMT", 60), ("Sun, 06 Nov 1994 08:48:37 GMT", 0),
        ]
        for row in rows {
            XCTAssertEqual(RetryAfter.seconds(in: row.field, now: now), row.seconds, row.field)
        }
        XCTAssertNil(RetryAfter(SpoolError.httpStatus(500, retryAfter: "3")), "only 429 and 503 ask to come back")
        XCTAssertEqual(RetryAfter(SpoolError.httpStatus(503, retryAfter: "3"))?.seconds, 3)
    }

    func testARequestWaitsAsAskedOrLeavesTheWaitToItsCaller() {
        let policy = FetchPolicy()
        let rows: [(name: String, error: SpoolError, wait: TimeInterval?)] = [
            ("a broken connection: the policy's first wait", .network("reset"), policy.retryWait(attempt: 1)),
            ("429, come back in 1 s", .httpStatus(429, retryAfter: "1"), 1),
            ("503, come back in 2 s: a moment a player rides out", .httpStatus(503, retryAfter: "2"), 2),
            ("429, come back in 30 s: the caller waits, not the read", .httpStatus(429, retryAfter: "30"), nil),
            ("429 without a field: a second", .httpStatus(429), policy.retryAfterWithoutField),
            ("503 without a field: the policy's wait", .httpStatus(503), policy.retryWait(attempt: 1)),
            ("404: never again", .httpStatus(404), nil),
        ]
        for row in rows {
            var budget = RetryBudget(startedAt: 0)
            XCTAssertEqual(budget.failed(row.error, progressed: false, at: 1, policy: policy), row.wait, row.name)
        }
    }
}
