import Foundation
import NIOCore
import NIOPosix
import Spool
import SpoolProxy
import SpoolTesting
import XCTest

/// The proxy through an app's life: its listening socket shut down under it (as iOS does to a suspended app)
/// and it listens again on the same port, noticed at once or found by `ensureListening()`; a taken port moves
/// it, and it says so. Connections open at the time carry on; nothing cached is lost.
final class ListenerLifecycleTests: XCTestCase {
    private var origin: TestOrigin!
    private var cache: SpoolCache!
    private var proxy: SpoolProxy!
    private var directory: URL!

    override func setUp() async throws {
        origin = try TestOrigin()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-listen-\(UUID().uuidString)")
        cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        proxy = SpoolProxy(cache: cache)
        try await proxy.start()
    }

    override func tearDown() async throws {
        await proxy.stop()
        await cache.close()
        origin.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func serve(_ path: String, length: Int64, seed: UInt64) -> URL {
        origin.serve(.generated(length: length, seed: seed), at: path, contentType: "video/mp4")
        return origin.url(for: path)
    }

    /// One GET through curl: the status, the `X-Spool-Cache` field and the body.
    private static func get(_ url: URL) async throws -> Fetched {
        let response = try await Curl.fetch(url, ["--max-time", "20"])
        return Fetched(status: response.status, cache: response.headers["x-spool-cache"], body: response.body)
    }

    private struct Fetched: Sendable {
        let status: Int
        let cache: String?
        let body: Data
    }

    func testASocketClosedUnderTheProxyIsReplacedOnTheSamePortAndOpenDownloadsCarryOn() async throws {
        let events = EventRecorder(proxy)
        let base = try XCTUnwrap(proxy.baseURL)
        let cached = try proxy.url(for: serve("/a.mp4", length: 300_000, seed: 1))
        let before = try await Self.get(cached)
        XCTAssertEqual(before.body, TestContent.generatedBytes(seed: 1, range: 0..<300_000))

        // A download in progress when the socket goes: 4 MB at 2 MB/s.
        let slowURL = try proxy.url(for: serve("/slow.mp4", length: 4_000_000, seed: 2))
        origin.behaviour.throttleBytesPerSecond = 2_000_000
        let download = Task { try await ListenerLifecycleTests.get(slowURL) }
        let origin = try XCTUnwrap(origin)
        try await waitUntil { origin.bodyBytesSent > 300_000 + 200_000 }

        await proxy.loseListeningSocketForTesting(noticed: true)
        let lost = await events.next { if case .listenerLost = $0 { true } else { false } }
        XCTAssertEqual(lost.map(Self.url), base, "the loss is told, with the address lost")
        let again = await events.next(within: .seconds(5)) { if case .listeningAgain = $0 { true } else { false } }
        XCTAssertEqual(again, .listeningAgain(base), "listening again within 5 s, on the same address and port")

        // The old URLs work: the next request on the old port is served, and cached bytes are still cached.
        let replay = try await Self.get(cached)
        XCTAssertEqual(replay.status, 200)
        XCTAssertEqual(replay.cache, "hit")
        XCTAssertEqual(replay.body, before.body)
        XCTAssertEqual(try proxy.url(for: origin.url(for: "/a.mp4")), cached)

        let slow = try await download.value
        XCTAssertEqual(slow.status, 200)
        XCTAssertEqual(
            slow.body, TestContent.generatedBytes(seed: 2, range: 0..<4_000_000), "the open download carried on")
    }

    func testASilentLossIsFoundByEnsureListeningAndTheOldURLWorksAtOnce() async throws {
        let events = EventRecorder(proxy)
        let base = try XCTUnwrap(proxy.baseURL)
        let url = try proxy.url(for: serve("/b.mp4", length: 100_000, seed: 3))

        // As on a device: the socket is gone and nothing reported it; clients are refused.
        await proxy.loseListeningSocketForTesting(noticed: false)
        let refused = try await Curl.run(["--max-time", "5", "-o", "/dev/null", url.absoluteString])
        XCTAssertEqual(refused.status, 7, "curl: connection refused while nobody listens")

        // What an app does on `willEnterForegroundNotification`.
        let listening = try await proxy.ensureListening()
        XCTAssertEqual(listening, base)
        let response = try await Self.get(url)
        XCTAssertEqual(response.status, 200, "served on the first try after ensureListening()")
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 3, range: 0..<100_000))
        let again = await events.next { if case .listeningAgain = $0 { true } else { false } }
        XCTAssertEqual(again, .listeningAgain(base))

        // A healthy socket is left alone.
        let checked = try await proxy.ensureListening()
        XCTAssertEqual(checked, base)
        let later = try await Self.get(url)
        XCTAssertEqual(later.status, 200)
    }

    func testURLForLooksAtTheSocketAndNeverNamesOneThatStoppedListening() async throws {
        let base = try XCTUnwrap(proxy.baseURL)
        let originURL = serve("/d.mp4", length: 50_000, seed: 5)
        await proxy.loseListeningSocketForTesting(noticed: false)
        // Nothing reported the loss; the next url(for:) finds the socket closed and listens again first.
        let url = try proxy.url(for: originURL)
        XCTAssertEqual(url.port, base.port)
        let response = try await Self.get(url)
        XCTAssertEqual(response.status, 200, "served on the first try")
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 5, range: 0..<50_000))
    }

    func testATakenPortMovesTheProxyAndItSaysSo() async throws {
        let events = EventRecorder(proxy)
        let old = try XCTUnwrap(proxy.baseURL)
        let oldPort = try XCTUnwrap(old.port)
        let originURL = serve("/c.mp4", length: 100_000, seed: 4)

        await proxy.loseListeningSocketForTesting(noticed: false)
        // Another program takes the port before the app comes back.
        let squatter = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: oldPort).get()
        defer { squatter.close(promise: nil) }

        let moved = try await proxy.ensureListening()
        XCTAssertNotEqual(moved.port, oldPort)
        XCTAssertEqual(proxy.baseURL, moved)
        let event = await events.next { if case .moved = $0 { true } else { false } }
        XCTAssertEqual(event, .moved(from: old, to: moved), "the move is told, old and new address")
        let url = try proxy.url(for: originURL)
        XCTAssertEqual(url.port, moved.port, "url(for:) names the port the proxy listens on")
        let response = try await Self.get(url)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 4, range: 0..<100_000))
    }

    func testEventsEndWhenTheProxyStops() async throws {
        let stream = proxy.events()
        await proxy.stop()
        var iterator = stream.makeAsyncIterator()
        let next = await iterator.next()
        XCTAssertNil(next)
        XCTAssertThrowsError(try proxy.url(for: origin.url(for: "/x.mp4")))
    }

    private static func url(of event: ProxyEvent) -> URL? {
        if case .listenerLost(let url, _) = event { return url }
        return nil
    }

    /// Waits, at most 10 s, until `condition` holds.
    private func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertTrue(condition(), "the condition never held")
    }
}
