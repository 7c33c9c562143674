import Foundation
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy's preload API driven with curl, as an app in any language would: a feed `PUT` over HTTP is
/// preloaded and plays through the proxy without origin requests for what was preloaded, swipes move the
/// window, and bad requests are refused with a clear reason and change nothing.
final class PreloadAPITests: XCTestCase {
    /// The state the API answers with.
    private struct Status: Decodable, Equatable {
        struct Item: Decodable, Equatable {
            var id: String
            var state: String
            var bytes: Int64?
        }
        struct Totals: Decodable, Equatable {
            var itemsStarted: Int
            var itemsLoaded: Int
            var bytesPreloaded: Int64
            var bytesPlayed: Int64
            var bytesWasted: Int64
        }
        var current: Int?
        var items: [Item]
        var totals: Totals
    }

    func testAFeedPutOverHTTPIsPreloadedAndPlaysWithoutRefetching() async throws {
        let fixture = try await ProxyFixture(test: self)
        for index in 0..<4 {
            _ = try MediaSamples.mp4(in: fixture.www, name: "v\(index).mp4", seconds: 8, faststart: index != 1)
        }
        // As an app has them: the proxy URLs it gives its player, and one origin URL.
        let urls =
            try (0..<3).map { try fixture.proxyURL("v\($0).mp4").absoluteString }
            + [fixture.originURL("v3.mp4").absoluteString]
        let feed: [String: Any] = [
            "items": urls.enumerated().map { ["url": $1, "id": "v\($0)"] },
            "current": 0,
        ]
        let put = try await ControlAPI.call(fixture, "PUT", SpoolProxy.preloadPath, json: feed)
        XCTAssertEqual(put.status, 200, put.text)
        XCTAssertEqual(try status(put.body).items.map(\.id), ["v0", "v1", "v2", "v3"])
        // The current item and the two ahead (v1 with its moov at the end); v3 is outside the window.
        var loaded = try await waitUntil(fixture) {
            Set($0.items.filter { $0.state == "loaded" }.map(\.id)) == ["v0", "v1", "v2"]
        }
        XCTAssertEqual(loaded.items[3].state, "idle")
        XCTAssertEqual(loaded.current, 0)
        try await fixture.assertPlaysWithoutRefetching("v1.mp4", seconds: 2)

        let swipe = try await ControlAPI.call(fixture, "PUT", "/preload/current", json: ["id": "v2"])
        XCTAssertEqual(swipe.status, 200, swipe.text)
        XCTAssertEqual(try status(swipe.body).current, 2)
        loaded = try await waitUntil(fixture) { $0.items[3].state == "loaded" }
        try await fixture.assertPlaysWithoutRefetching("v3.mp4", seconds: 2)
        XCTAssertGreaterThan(loaded.totals.bytesPreloaded, 0)
        XCTAssertGreaterThanOrEqual(loaded.totals.itemsLoaded, 4)

        let emptied = try await ControlAPI.call(fixture, "DELETE", SpoolProxy.preloadPath)
        XCTAssertEqual(emptied.status, 200, emptied.text)
        XCTAssertEqual(try status(emptied.body).items, [])
        // Swift code reaches the same preloader.
        XCTAssertEqual(fixture.proxy.preloader.totals.itemsLoaded, loaded.totals.itemsLoaded)
    }

    func testBadRequestsAreRefusedWithAReasonAndChangeNothing() async throws {
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"]))
        try fixture.serveGenerated("a.bin", length: 100_000, seed: 1)
        let good = try fixture.proxyURL("a.bin").absoluteString
        let put = try await ControlAPI.call(
            fixture, "PUT", SpoolProxy.preloadPath, json: ["items": [["url": good, "id": "a"]], "current": 0])
        XCTAssertEqual(put.status, 200, put.text)
        let before = try status(put.body)

        let item = { (fields: [String: Any]) -> [String: Any] in ["items": [fields]] }
        let cases: [(name: String, method: String, path: String, body: String, status: Int, reason: String)] = [
            ("not JSON", "PUT", "/preload", "{items", 400, "malformed"),
            ("no items", "PUT", "/preload", "{}", 400, "items is missing"),
            (
                "an item without a url", "PUT", "/preload", try ControlAPI.text(item(["id": "x"])), 400,
                "items[0].url is missing"
            ),
            (
                "a number for a url", "PUT", "/preload", try ControlAPI.text(item(["url": 3])), 400,
                "items[0].url has the wrong type"
            ),
            ("a file URL", "PUT", "/preload", try ControlAPI.text(item(["url": "file:///etc/passwd"])), 400, "item 1"),
            (
                "a host not allowed", "PUT", "/preload", try ControlAPI.text(item(["url": "http://example.com/a.mp4"])),
                403,
                "origin host not allowed"
            ),
            (
                "seconds and bytes", "PUT", "/preload",
                try ControlAPI.text(item(["url": good, "seconds": 3, "bytes": 10])), 400,
                "not both"
            ),
            (
                "negative seconds", "PUT", "/preload", try ControlAPI.text(item(["url": good, "seconds": -1])), 400,
                "seconds"
            ),
            (
                "two items with one id", "PUT", "/preload",
                try ControlAPI.text(["items": [["url": good], ["url": good]]]), 400,
                "two items with the id"
            ),
            (
                "current past the end", "PUT", "/preload",
                try ControlAPI.text(["items": [["url": good]], "current": 1]), 400,
                "current is 1"
            ),
            ("an unknown id", "PUT", "/preload/current", "{\"id\": \"nope\"}", 400, "no such item"),
            ("index and id", "PUT", "/preload/current", "{\"id\": \"a\", \"index\": 0}", 400, "either"),
            ("POST", "POST", "/preload", "{}", 405, "GET, HEAD, PUT, DELETE"),
            ("DELETE the current item", "DELETE", "/preload/current", "", 405, "GET, HEAD, PUT"),
        ]
        for test in cases {
            let answer = try await ControlAPI.call(fixture, test.method, test.path, body: test.body)
            XCTAssertEqual(answer.status, test.status, "\(test.name): \(answer.text)")
            XCTAssertTrue(answer.text.contains(test.reason), "\(test.name): \(answer.text)")
        }
        // A body over the limit is refused before it is sent (curl waits for `100 Continue`).
        let huge = FileManager.default.temporaryDirectory.appendingPathComponent("spool-huge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: huge) }
        try Data(count: 5 << 20).write(to: huge)
        let tooLarge = try await Curl.run(
            [
                "--request", "PUT", "--header", "Expect: 100-continue", "--data-binary", "@\(huge.path)",
                "--header", "Authorization: Bearer \(fixture.proxy.controlToken)",
                "--output", "/dev/null", "--write-out", "%{http_code}",
                fixture.proxy.baseURL!.absoluteString + "/preload",
            ])
        XCTAssertEqual(String(decoding: tooLarge.stdout, as: UTF8.self), "413", tooLarge.stderr)

        let after = try await ControlAPI.call(fixture, "GET", SpoolProxy.preloadPath)
        XCTAssertEqual(after.status, 200)
        XCTAssertEqual(try status(after.body).items.map(\.id), before.items.map(\.id), "the feed is unchanged")
        XCTAssertEqual(try status(after.body).current, 0)
    }

    // MARK: Helpers

    private func status(_ body: Data) throws -> Status {
        try JSONDecoder().decode(Status.self, from: body)
    }

    private func waitUntil(_ fixture: ProxyFixture, _ done: (Status) -> Bool) async throws -> Status {
        var last: Status?
        for _ in 0..<400 {
            let answer = try await ControlAPI.call(fixture, "GET", SpoolProxy.preloadPath)
            let current = try status(answer.body)
            if done(current) { return current }
            last = current
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTFail("states: \(String(describing: last))")
        return try XCTUnwrap(last)
    }
}
