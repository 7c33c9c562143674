import Spool
import XCTest

@testable import SpoolProxy

final class ResponsePlanTests: XCTestCase {
    private let info = ContentInfo(
        length: 1000, mimeType: "audio/mpeg", entityTag: "\"v1\"", lastModified: "Sat, 21 Nov 2026 10:00:00 GMT")

    private func plan(_ range: String?, ifRange: String? = nil, ifNoneMatch: String? = nil, info: ContentInfo? = nil)
        -> ResponsePlan
    {
        ResponsePlan(
            for: .init(range: range, ifRange: ifRange, ifNoneMatch: ifNoneMatch), info: info ?? self.info,
            boundary: "B")
    }

    private func field(_ plan: ResponsePlan, _ name: String) -> String? {
        plan.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    func testRangeFormsOfRFC9110() {
        XCTAssertEqual(RangeSpecifier.parse(header: "bytes=0-499"), [.bounded(first: 0, last: 499)])
        XCTAssertEqual(RangeSpecifier.parse(header: "bytes=500-"), [.from(first: 500)])
        XCTAssertEqual(RangeSpecifier.parse(header: "bytes=-200"), [.suffix(count: 200)])
        XCTAssertEqual(
            RangeSpecifier.parse(header: "bytes=\t0-1\t, 5-"), [.bounded(first: 0, last: 1), .from(first: 5)])
        XCTAssertEqual(
            RangeSpecifier.parse(header: "BYTES = 0-0, -1 ,,"), [.bounded(first: 0, last: 0), .suffix(count: 1)])
        XCTAssertEqual(
            RangeSpecifier.parse(header: "bytes=0-99999999999999999999999"), [.bounded(first: 0, last: .max)])
        XCTAssertEqual(RangeSpecifier.parse(header: "bYtEs=7-"), [.from(first: 7)])
        for invalid in [
            "bytes=", "bytes=abc", "bytes=5-1", "items=0-1", "bytes 0-1", "bytes=-", "bytes=1-2-3", "bytes=+1-2",
            "bytes=0x1-2", "", "bytez=0-1", "byte=0-1", "bÿtes=0-1", "bytes=０-1", "bytes=0-1 2", "bytes=0-\u{0}",
        ] {
            XCTAssertNil(RangeSpecifier.parse(header: invalid), invalid)
        }
    }

    func testNoRangeServesEverything() {
        let whole = plan(nil)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, .bytes(0..<1000))
        XCTAssertEqual(field(whole, "Content-Type"), "audio/mpeg")
        XCTAssertEqual(field(whole, "Accept-Ranges"), "bytes")
        XCTAssertEqual(field(whole, "ETag"), "\"v1\"")
        XCTAssertEqual(field(whole, "Last-Modified"), "Sat, 21 Nov 2026 10:00:00 GMT")
    }

    func testSingleRanges() {
        XCTAssertEqual(plan("bytes=0-499").body, .bytes(0..<500))
        XCTAssertEqual(field(plan("bytes=0-499"), "Content-Range"), "bytes 0-499/1000")
        XCTAssertEqual(plan("bytes=900-").body, .bytes(900..<1000))
        XCTAssertEqual(plan("bytes=990-2000").body, .bytes(990..<1000))
        XCTAssertEqual(plan("bytes=-100").body, .bytes(900..<1000))
        XCTAssertEqual(plan("bytes=-5000").body, .bytes(0..<1000))
        XCTAssertEqual(plan("bytes=999-999").body, .bytes(999..<1000))
        XCTAssertEqual(plan("bytes=999-999").status, 206)
    }

    func testUnsatisfiableRangesGet416WithTheLength() {
        for range in ["bytes=1000-", "bytes=1000-2000", "bytes=-0", "bytes=5000-6000,7000-"] {
            let refused = plan(range)
            XCTAssertEqual(refused.status, 416, range)
            XCTAssertEqual(field(refused, "Content-Range"), "bytes */1000", range)
            XCTAssertEqual(refused.body, ResponseBody.none, range)
        }
        let empty = ContentInfo(length: 0, mimeType: "audio/mpeg")
        XCTAssertEqual(plan("bytes=0-", info: empty).status, 416)
        XCTAssertEqual(plan(nil, info: empty).status, 200)
        XCTAssertEqual(plan(nil, info: empty).contentLength, 0)
    }

    func testInvalidRangeHeaderIsIgnored() {
        XCTAssertEqual(plan("bytes=abc").status, 200)
        XCTAssertEqual(plan("bytes=5-1").body, .bytes(0..<1000))
    }

    func testSeveralRangesMakeAMultipartBodyWithExactLength() {
        let multi = plan("bytes=0-9,100-109,-10")
        XCTAssertEqual(multi.status, 206)
        XCTAssertEqual(field(multi, "Content-Type"), "multipart/byteranges; boundary=B")
        guard case .multipart(let parts, let closing) = multi.body else { return XCTFail("\(multi.body)") }
        XCTAssertEqual(parts.map(\.range), [0..<10, 100..<110, 990..<1000])
        XCTAssertEqual(parts[0].header, "\r\n--B\r\nContent-Type: audio/mpeg\r\nContent-Range: bytes 0-9/1000\r\n\r\n")
        XCTAssertEqual(closing, "\r\n--B--\r\n")
        let expected = parts.reduce(closing.utf8.count) { $0 + $1.header.utf8.count + 10 }
        XCTAssertEqual(multi.contentLength, Int64(expected))
    }

    func testOverlappingOrTooManyRangesAreCoalesced() {
        XCTAssertEqual(plan("bytes=0-99,50-149").body, .bytes(0..<150))
        XCTAssertEqual(plan("bytes=0-99,2000-3000").body, .bytes(0..<100))
        let many = (0..<40).map { "\($0 * 20)-\($0 * 20 + 1)" }.joined(separator: ",")
        guard case .multipart(let parts, _) = plan("bytes=" + many).body else { return XCTFail() }
        XCTAssertEqual(parts.count, 40)
        let tooMany = (0..<40).map { "\($0 * 20)-\($0 * 20 + 19)" }.joined(separator: ",")
        XCTAssertEqual(plan("bytes=" + tooMany).body, .bytes(0..<800))
    }

    func testIfRangeServesTheRangeOnlyForTheSameVersion() {
        XCTAssertEqual(plan("bytes=0-9", ifRange: "\"v1\"").status, 206)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "Sat, 21 Nov 2026 10:00:00 GMT").status, 206)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "\"v0\"").status, 200)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "W/\"v1\"").status, 200)
        XCTAssertEqual(plan("bytes=0-9", ifRange: "Fri, 20 Nov 2026 10:00:00 GMT").status, 200)
        let weak = ContentInfo(length: 1000, entityTag: "W/\"v1\"")
        XCTAssertEqual(plan("bytes=0-9", ifRange: "W/\"v1\"", info: weak).status, 200)
    }

    func testIfNoneMatchAnswers304() {
        XCTAssertEqual(plan(nil, ifNoneMatch: "\"v1\"").status, 304)
        XCTAssertEqual(plan(nil, ifNoneMatch: "\"x\", W/\"v1\"").status, 304)
        XCTAssertEqual(plan(nil, ifNoneMatch: "*").status, 304)
        XCTAssertEqual(plan(nil, ifNoneMatch: "\"v2\"").status, 200)
        XCTAssertEqual(plan(nil, ifNoneMatch: "\"v1\"").body, ResponseBody.none)
    }

    func testUnknownTypeIsOctetStream() {
        XCTAssertEqual(field(plan(nil, info: ContentInfo(length: 5)), "Content-Type"), "application/octet-stream")
    }
}
