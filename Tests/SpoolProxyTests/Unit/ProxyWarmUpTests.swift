import Foundation
import Spool
import SpoolTesting
import XCTest

@testable import SpoolProxy

/// The warm-up a proxy runs once it listens rehearses a request's one-time set-up on a made-up URL, then a cold
/// read on a private cache against its own ping: it must leave no trace an app could see, neither in the cache
/// directory nor in what the cache reports.
final class ProxyWarmUpTests: XCTestCase {
    func testTheWarmUpLeavesTheCacheAndItsReportsUntouched() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-warm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let responder = ProxyResponder(cache: cache, configuration: ProxyConfiguration())
        responder.warmUp()
        responder.warmUp()

        let entries = await cache.entries()
        XCTAssertTrue(entries.isEmpty, "\(entries.map(\.url))")
        let statistics = await cache.statistics
        XCTAssertEqual(statistics.bytesServed, 0)
        XCTAssertEqual(statistics.bytesFetched, 0)
        let reports = await cache.playback.recent()
        XCTAssertTrue(reports.isEmpty)
        await cache.close()
        for folder in ["data", "index"] {
            let folderPath = directory.appendingPathComponent(folder).path
            let files = try FileManager.default.contentsOfDirectory(atPath: folderPath)
            XCTAssertEqual(files, [], folder)
        }
    }

    func testAStartedProxyServesItsFirstRequestWhateverTheWarmUpIsDoing() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 200_000, seed: 7), at: "/first.mp4", contentType: "video/mp4")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-warm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let proxy = SpoolProxy(cache: cache)
        try await proxy.start()
        // At once: the warm-up started by `start()` may still run beside this first request.
        let response = try await Curl.fetch(try proxy.url(for: origin.url(for: "/first.mp4")), ["--max-time", "20"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, TestContent.generatedBytes(seed: 7, range: 0..<200_000))
        let entries = await cache.entries()
        XCTAssertEqual(entries.map(\.url), [origin.url(for: "/first.mp4").absoluteString])
        await proxy.stop()
        await cache.close()
    }

    func testAStartedProxyRehearsesAColdReadAgainstItsOwnPingAndItsCacheShowsNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-warm-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (pings, seen) = AsyncStream.makeStream(of: ProxyLogRecord.self)
        var configuration = ProxyConfiguration()
        configuration.log = { record in
            if record.method == "GET", record.target == SpoolProxy.pingPath { seen.yield(record) }
        }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let proxy = SpoolProxy(cache: cache, configuration: configuration)
        try await proxy.start()

        // The rehearsal's read, sized as a player's first read, answered by the ping.
        let ping = try await withinHangBound { await pings.first { _ in true } } ?? nil
        XCTAssertEqual(ping?.status, 200)
        XCTAssertNotNil(ping?.range)
        await proxy.stop()

        let entries = await cache.entries()
        XCTAssertTrue(entries.isEmpty, "\(entries.map(\.url))")
        let statistics = await cache.statistics
        XCTAssertEqual(statistics.bytesFetched, 0)
        XCTAssertEqual(statistics.bytesServed, 0)
        await cache.close()
    }
}
