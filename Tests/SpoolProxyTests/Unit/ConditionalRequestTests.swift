import Spool
import XCTest

@testable import SpoolProxy

/// RFC 9110's preconditions as the proxy plans them (section 13.2.2's order): If-Match, else
/// If-Unmodified-Since, then If-None-Match, else If-Modified-Since, then If-Range; and the dates they carry.
final class ConditionalRequestTests: XCTestCase {
    private let modified = "Sat, 21 Nov 2026 10:00:00 GMT"
    private let earlier = "Fri, 20 Nov 2026 10:00:00 GMT"
    private let later = "Sun, 22 Nov 2026 10:00:00 GMT"
    private var info: ContentInfo {
        ContentInfo(length: 1000, mimeType: "audio/mpeg", entityTag: "\"v1\"", lastModified: modified)
    }

    private func status(_ request: ResponsePlan.Request, info: ContentInfo? = nil) -> Int {
        ResponsePlan(for: request, info: info ?? self.info, boundary: "B").status
    }

    func testIfModifiedSinceAnswers304UnlessModifiedAfterTheDate() {
        let cases: [(String, Int)] = [
            (modified, 304), (later, 304), (earlier, 200),
            ("Saturday, 21-Nov-26 10:00:00 GMT", 304), ("Sat Nov 21 10:00:00 2026", 304),
            ("not a date", 200), ("Sat, 21 Nov 2026 10:00:00", 200), ("", 200),
        ]
        for (date, expected) in cases {
            XCTAssertEqual(status(.init(ifModifiedSince: date)), expected, date)
            XCTAssertEqual(status(.init(range: "bytes=0-9", ifModifiedSince: date)), expected == 304 ? 304 : 206, date)
        }
        let noDate = ContentInfo(length: 1000, mimeType: "audio/mpeg", entityTag: "\"v1\"", lastModified: nil)
        XCTAssertEqual(status(.init(ifModifiedSince: later), info: noDate), 200, "nothing to compare: ignored")
    }

    func testIfNoneMatchOverridesIfModifiedSince() {
        XCTAssertEqual(status(.init(ifNoneMatch: "\"other\"", ifModifiedSince: later)), 200)
        XCTAssertEqual(status(.init(ifNoneMatch: "W/\"v1\"", ifModifiedSince: earlier)), 304)
    }

    func testIfUnmodifiedSinceAnswers412WhenModifiedAfterTheDate() {
        XCTAssertEqual(status(.init(ifUnmodifiedSince: earlier)), 412)
        XCTAssertEqual(status(.init(ifUnmodifiedSince: modified)), 200)
        XCTAssertEqual(status(.init(ifUnmodifiedSince: later)), 200)
        XCTAssertEqual(status(.init(ifUnmodifiedSince: "garbage")), 200, "an invalid date is ignored")
        XCTAssertEqual(status(.init(range: "bytes=0-9", ifUnmodifiedSince: earlier)), 412, "before any range")
    }

    func testIfMatchUsesTheStrongComparisonAndOverridesIfUnmodifiedSince() {
        XCTAssertEqual(status(.init(ifMatch: "\"v1\"")), 200)
        XCTAssertEqual(status(.init(ifMatch: "\"x\", \"v1\"")), 200)
        XCTAssertEqual(status(.init(ifMatch: "*")), 200)
        XCTAssertEqual(status(.init(ifMatch: "W/\"v1\"")), 412, "a weak tag never matches strongly")
        XCTAssertEqual(status(.init(ifMatch: "\"v2\"")), 412)
        XCTAssertEqual(status(.init(ifMatch: "\"v1\"", ifUnmodifiedSince: earlier)), 200, "If-Match wins")
        let weak = ContentInfo(length: 1000, mimeType: "audio/mpeg", entityTag: "W/\"v1\"", lastModified: modified)
        XCTAssertEqual(status(.init(ifMatch: "W/\"v1\""), info: weak), 412)
        XCTAssertEqual(status(.init(ifMatch: "*"), info: weak), 200)
    }

    func testPreconditionsComeBeforeTheRange() {
        XCTAssertEqual(status(.init(range: "bytes=5000-", ifModifiedSince: modified)), 304, "not 416")
        XCTAssertEqual(status(.init(range: "bytes=5000-", ifMatch: "\"v2\"")), 412)
        XCTAssertEqual(status(.init(range: "bytes=0-9", ifRange: "\"v1\"", ifMatch: "\"v1\"")), 206)
    }

    func testHTTPDatesInTheThreeFormsAndOutAsIMFFixdate() {
        let seconds = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example
        XCTAssertEqual(HTTPDate.format(seconds), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), seconds)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), seconds)
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), seconds)
        XCTAssertEqual(HTTPDate.parse(HTTPDate.format(1_795_000_000)), 1_795_000_000)
        for invalid in [
            "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 8:49 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT",
            "1994-11-06T08:49:37Z",
        ] {
            XCTAssertNil(HTTPDate.parse(invalid), invalid)
        }
    }
}
