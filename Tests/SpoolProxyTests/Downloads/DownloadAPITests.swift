import Foundation
import Spool
import SpoolDownloads
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy's download API driven with curl, as an app in any language would: downloads `PUT` over HTTP
/// complete and play with the origin gone, they wait for the conditions, pause, resume and go when deleted,
/// and bad requests are refused with a clear reason and change nothing.
final class DownloadAPITests: XCTestCase {
    /// The state the API answers with.
    private struct Status: Decodable {
        struct Item: Decodable, Equatable {
            var id: String
            var kind: String
            var state: String
            var bytes: Int64?
            var waitingFor: [String]?
            var title: String?
        }
        struct Totals: Decodable {
            var items: Int
            var completed: Int
            var bytes: Int64
        }
        var directory: String
        var items: [Item]
        var totals: Totals
    }

    func testDownloadsPutOverHTTPCompleteAndPlayWithTheOriginGone() async throws {
        let conditions = SettableConditions(availableDiskBytes: 1 << 40)
        let fixture = try await ProxyFixture(test: self, downloadConditions: conditions)
        let queue = try XCTUnwrap(fixture.downloads)
        let events = queue.events()
        try fixture.serveGenerated("a.mp3", length: 300_000, seed: 1)
        try fixture.serveGenerated("b.mp3", length: 300_000, seed: 2)
        // A media playlist of one segment: the proxy tells it from a file by itself.
        try fixture.serveGenerated("show0.ts", length: 100_000, seed: 3)
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nshow0.ts\n#EXT-X-ENDLIST\n"
        try playlist.write(to: fixture.www.appendingPathComponent("show.m3u8"), atomically: true, encoding: .utf8)
        let show = Int64(100_000 + playlist.utf8.count)

        // As an app has them: the proxy URL it gives its player, and origin URLs.
        let put = try await ControlAPI.call(
            fixture, "PUT", SpoolProxy.downloadsPath,
            json: [
                "items": [
                    ["url": try fixture.proxyURL("a.mp3").absoluteString, "id": "a", "title": "Track A"],
                    ["url": fixture.originURL("b.mp3").absoluteString, "id": "b"],
                    ["url": fixture.originURL("show.m3u8").absoluteString, "id": "show"],
                ]
            ])
        XCTAssertEqual(put.status, 200, put.text)
        let queued = try status(put.body)
        XCTAssertEqual(queued.items.map(\.id), ["a", "b", "show"])
        XCTAssertEqual(queued.items.map(\.kind), ["file", "file", "hls"])
        XCTAssertEqual(queued.items[0].title, "Track A")
        XCTAssertEqual(queued.directory, fixture.cacheDirectory.standardizedFileURL.path)

        try await until(queue, events, "all completed") { $0.items.allSatisfy { $0.state.isCompleted } }
        let done = try status(try await ControlAPI.call(fixture, "GET", SpoolProxy.downloadsPath).body)
        XCTAssertEqual(done.items.map(\.state), ["completed", "completed", "completed"])
        XCTAssertEqual(done.items.map(\.bytes), [300_000, 300_000, show])
        XCTAssertEqual(done.totals.completed, 3)
        XCTAssertEqual(done.totals.bytes, 600_000 + show)

        // One waits for Wi-Fi; pausing and resuming it over the API.
        conditions.update { $0.isExpensive = true }
        try fixture.serveGenerated("c.mp3", length: 200_000, seed: 4)
        let added = try await ControlAPI.call(
            fixture, "PUT", SpoolProxy.downloadsPath,
            json: ["items": [["url": fixture.originURL("c.mp3").absoluteString, "id": "c", "kind": "file"]]])
        XCTAssertEqual(added.status, 200, added.text)
        try await until(queue, events, "c waits") { $0.item("c")?.state == .waiting([.expensiveNetwork]) }
        let waiting = try status(try await ControlAPI.call(fixture, "GET", SpoolProxy.downloadsPath).body)
        XCTAssertEqual(waiting.items.last?.waitingFor, ["expensiveNetwork"])
        let paused = try await ControlAPI.call(
            fixture, "PUT", "/downloads/state", json: ["ids": ["c"], "state": "paused"])
        XCTAssertEqual(paused.status, 200, paused.text)
        XCTAssertEqual(try status(paused.body).items.last?.state, "paused")
        let resumed = try await ControlAPI.call(
            fixture, "PUT", "/downloads/state", json: ["ids": ["c"], "state": "queued"])
        XCTAssertEqual(resumed.status, 200, resumed.text)
        conditions.update { $0.isExpensive = false }
        try await until(queue, events, "c completed") { $0.item("c")?.state == .completed(bytes: 200_000) }

        // Removed by a query item; its bytes go, the others stay.
        let deleted = try await ControlAPI.call(fixture, "DELETE", SpoolProxy.downloadsPath + "?id=b")
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertEqual(try status(deleted.body).items.map(\.id), ["a", "show", "c"])
        let removedEntry = await fixture.cache.entry(for: fixture.originURL("b.mp3"))
        XCTAssertNil(removedEntry)

        // On the plane: the origin is gone, the downloads play through the proxy.
        fixture.nginx.stop()
        for (name, seed, length) in [
            ("a.mp3", UInt64(1), Int64(300_000)), ("c.mp3", 4, 200_000), ("show0.ts", 3, 100_000),
        ] {
            let played = try await Curl.fetch(try fixture.proxyURL(name))
            XCTAssertEqual(played.status, 200, name)
            XCTAssertEqual(played.body, TestContent.generatedBytes(seed: seed, range: 0..<length), name)
        }
    }

    func testBadRequestsAreRefusedWithAReasonAndChangeNothing() async throws {
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(allowedHosts: ["127.0.0.1"]),
            downloadConditions: SettableConditions(DeviceConditions(isExpensive: true)))
        try fixture.serveGenerated("a.bin", length: 100_000, seed: 1)
        let good = fixture.originURL("a.bin").absoluteString
        let put = try await ControlAPI.call(
            fixture, "PUT", SpoolProxy.downloadsPath, json: ["items": [["url": good, "id": "a"]]])
        XCTAssertEqual(put.status, 200, put.text)

        let item = { (fields: [String: Any]) -> [String: Any] in ["items": [fields]] }
        let cases: [(name: String, method: String, path: String, body: String, status: Int, reason: String)] = [
            ("not JSON", "PUT", "/downloads", "{items", 400, "malformed"),
            ("no items", "PUT", "/downloads", "{}", 400, "items is missing"),
            (
                "an item without a url", "PUT", "/downloads", try ControlAPI.text(item(["id": "x"])), 400,
                "items[0].url is missing"
            ),
            (
                "a file URL", "PUT", "/downloads", try ControlAPI.text(item(["url": "file:///etc/passwd"])), 400,
                "item 1"
            ),
            (
                "a host not allowed", "PUT", "/downloads",
                try ControlAPI.text(item(["url": "http://example.com/a.mp3"])), 403,
                "origin host not allowed"
            ),
            (
                "an unknown kind", "PUT", "/downloads", try ControlAPI.text(item(["url": good, "kind": "zip"])), 400,
                "kind is"
            ),
            (
                "two variant choices", "PUT", "/downloads",
                try ControlAPI.text(item(["url": good, "variants": "all", "maxBandwidth": 100])), 400, "give one of"
            ),
            (
                "two items with one id", "PUT", "/downloads",
                try ControlAPI.text(["items": [["url": good], ["url": good]]]), 400,
                "two items with the id"
            ),
            ("an unknown state", "PUT", "/downloads/state", "{\"ids\": [\"a\"], \"state\": \"gone\"}", 400, "state is"),
            (
                "an unknown id", "PUT", "/downloads/state", "{\"ids\": [\"nope\"], \"state\": \"paused\"}", 400,
                "no download nope"
            ),
            ("DELETE naming nothing", "DELETE", "/downloads", "", 400, "name the downloads"),
            ("DELETE an unknown id", "DELETE", "/downloads?id=nope", "", 400, "no download nope"),
            ("POST", "POST", "/downloads", "{}", 405, "GET, HEAD, PUT, DELETE"),
            ("DELETE the state", "DELETE", "/downloads/state", "", 405, "GET, HEAD, PUT"),
        ]
        for test in cases {
            let answer = try await ControlAPI.call(fixture, test.method, test.path, body: test.body)
            XCTAssertEqual(answer.status, test.status, "\(test.name): \(answer.text)")
            XCTAssertTrue(answer.text.contains(test.reason), "\(test.name): \(answer.text)")
        }
        let after = try status(try await ControlAPI.call(fixture, "GET", SpoolProxy.downloadsPath).body)
        XCTAssertEqual(after.items.map(\.id), ["a"], "the queue is unchanged")
        XCTAssertEqual(after.items.map(\.state), ["waiting"])

        // A proxy given no queue says so.
        let plain = try await ProxyFixture(test: self)
        let none = try await ControlAPI.call(plain, "GET", SpoolProxy.downloadsPath)
        XCTAssertEqual(none.status, 404, none.text)
        XCTAssertTrue(none.text.contains("no download queue"), none.text)
    }

    // MARK: Helpers

    private func until(
        _ queue: DownloadQueue, _ events: AsyncStream<DownloadEvent>, _ what: String,
        _ done: @escaping @Sendable (DownloadQueue) -> Bool
    ) async throws {
        let reached = try await holdsAfterEvents(events) { done(queue) }
        XCTAssertTrue(reached, "never: \(what); items: \(queue.items.map { "\($0.request.id) \($0.state)" })")
    }

    private func status(_ body: Data) throws -> Status {
        try JSONDecoder().decode(Status.self, from: body)
    }

}

extension DownloadState {
    fileprivate var isCompleted: Bool {
        if case .completed = self { true } else { false }
    }
}
