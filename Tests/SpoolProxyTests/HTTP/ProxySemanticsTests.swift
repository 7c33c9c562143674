import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy's answers beside nginx's for the same requests: the same status for every precondition
/// (RFC 9110, section 13), and a `Date` field on every response, whoever wrote it.
final class ProxySemanticsTests: XCTestCase {
    func testPreconditionsAreAnsweredAsNginxAnswersThem() async throws {
        let fixture = try await ProxyFixture(test: self)
        let file = try fixture.serveGenerated("song.mp3", length: 100_000, seed: 31)
        // A day old, so that a date after it is still in the past.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: file.path)
        let direct = try await Curl.fetch(fixture.originURL("song.mp3"), ["-r", "0-0"])
        let lastModified = try XCTUnwrap(direct.headers["last-modified"])
        let entityTag = try XCTUnwrap(direct.headers["etag"])
        let modified = try XCTUnwrap(Self.seconds(lastModified))
        let before = Self.date(modified - 3600)
        let after = Self.date(modified + 3600)
        let cases: [[String]] = [
            [],
            ["Range: bytes=0-99"],
            ["If-Modified-Since: \(lastModified)"],
            ["If-Modified-Since: \(after)"],
            ["If-Modified-Since: \(before)"],
            ["If-Modified-Since: not a date"],
            ["If-Modified-Since: \(lastModified)", "Range: bytes=0-99"],
            ["If-None-Match: \(entityTag)"],
            ["If-None-Match: \"other\"", "If-Modified-Since: \(lastModified)"],
            ["If-Unmodified-Since: \(before)"],
            ["If-Unmodified-Since: \(lastModified)"],
            ["If-Match: *"],
            ["If-Match: \(entityTag)"],
            ["If-Match: \"other\""],
            ["If-Match: \"other\"", "Range: bytes=0-99"],
            ["Range: bytes=200000-"],
        ]
        for headers in cases {
            let arguments = headers.flatMap { ["-H", $0] }
            let nginx = try await Curl.fetch(fixture.originURL("song.mp3"), arguments)
            let proxy = try await Curl.fetch(try fixture.proxyURL("song.mp3"), arguments)
            if headers == ["If-Modified-Since: \(after)"] {
                // nginx's default `if_modified_since exact` answers 304 to the exact date only; RFC 9110
                // (section 13.1.3) to any date not before the modification.
                XCTAssertEqual(nginx.status, 200)
                XCTAssertEqual(proxy.status, 304)
                continue
            }
            XCTAssertEqual(proxy.status, nginx.status, "\(headers)")
            XCTAssertNotNil(proxy.headers["date"].flatMap(Self.seconds), "a Date field: \(headers)")
            if proxy.status == 304 {
                XCTAssertNil(proxy.headers["content-length"], "no length of a body that is not there")
                XCTAssertEqual(proxy.headers["etag"], entityTag)
            }
        }
    }

    func testEveryResponseCarriesADate() async throws {
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"]))
        try fixture.serveGenerated("clip.mp4", length: 50_000, seed: 32)
        let url = try fixture.proxyURL("clip.mp4")
        let base = try XCTUnwrap(fixture.proxy.baseURL)
        let refusedHost = try fixture.proxy.url(for: URL(string: "http://localhost:1/x.mp4")!)
        let now = Int(Date().timeIntervalSince1970)
        // A miss, then a stored hit (answered on the event loop), the proxy's own paths, refusals, an error.
        let requests: [(URL, [String], Int)] = [
            (url, [], 200),
            (url, ["-r", "0-999"], 206),
            (base.appendingPathComponent("ping"), [], 200),
            (
                base.appendingPathComponent("statistics"),
                ["-H", "Authorization: Bearer \(fixture.proxy.controlToken)"], 200
            ),
            (base.appendingPathComponent("statistics"), [], 401),
            (refusedHost, [], 403),
            (base.appendingPathComponent("o/x"), [], 400),
            (base.appendingPathComponent("o/x/y"), [], 403),
            (url, ["-H", "Host: evil.example"], 421),
            (url, ["-X", "DELETE"], 405),
        ]
        for (target, arguments, status) in requests {
            let response = try await Curl.fetch(target, arguments)
            XCTAssertEqual(response.status, status, "\(target) \(arguments)")
            let date = try XCTUnwrap(response.headers["date"].flatMap(Self.seconds), "\(target) \(arguments)")
            XCTAssertLessThan(abs(date - now), 120, "the clock's date")
        }
        let hit = try await Curl.fetch(url, ["-r", "0-999"])
        XCTAssertEqual(hit.headers["x-spool-cache"], "hit")
        XCTAssertNotNil(hit.headers["date"])
        // NIO answers a request it cannot parse itself; the field is added below it.
        let malformed = try await RawHTTP.exchange(port: try XCTUnwrap(base.port), "GARBAGE\r\n\r\n")
        XCTAssertTrue(malformed.hasPrefix("HTTP/1.1 400"), malformed)
        XCTAssertTrue(malformed.lowercased().contains("\r\ndate: "), malformed)
    }

    /// A field a request may carry once (`Range`, `If-Range`, the dates) is refused when it comes twice, cold
    /// and stored alike, before the origin is asked; `If-None-Match` split over two lines is one list.
    func testRepeatedFieldsAreRefusedAndSplitListsJoined() async throws {
        let fixture = try await ProxyFixture(test: self)
        try fixture.serveGenerated("song.mp3", length: 100_000, seed: 33)
        let url = try fixture.proxyURL("song.mp3")
        let twice: [[String]] = [
            ["Range: bytes=0-1", "Range: bytes=5-9"],
            ["Range: bytes=0-99", "If-Range: \"a\"", "If-Range: \"b\""],
            ["If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT", "If-Modified-Since: Sun, 06 Nov 1994 08:49:38 GMT"],
            [
                "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:37 GMT",
                "If-Unmodified-Since: Sun, 06 Nov 1994 08:49:38 GMT",
            ],
        ]
        for headers in twice {
            let response = try await Curl.fetch(url, headers.flatMap { ["-H", $0] })
            XCTAssertEqual(response.status, 400, "cold, \(headers)")
        }
        XCTAssertEqual(try fixture.nginx.accessLog().count, 0, "nothing asked of the origin")

        let whole = try await Curl.fetch(url)
        XCTAssertEqual(whole.status, 200)
        let entityTag = try XCTUnwrap(whole.headers["etag"])
        for headers in twice {
            let response = try await Curl.fetch(url, headers.flatMap { ["-H", $0] })
            XCTAssertEqual(response.status, 400, "stored, \(headers)")
        }
        let split = try await Curl.fetch(url, ["-H", "If-None-Match: \"other\"", "-H", "If-None-Match: \(entityTag)"])
        XCTAssertEqual(split.status, 304, "the second line's tag matches")
        let single = try await Curl.fetch(url, ["-r", "5-9"])
        XCTAssertEqual(single.status, 206)
        XCTAssertEqual(single.body, whole.body.subdata(in: 5..<10))
    }

    private static func seconds(_ text: String) -> Int? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970) }
    }

    private static func date(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
