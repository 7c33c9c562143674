import XCTest

@testable import Spool

/// The engine against a non-HTTP origin: reading while filling, sharing, cancelling, versions, offline.
final class CustomOriginTests: XCTestCase {
    private var directory: URL!
    private let url = URL(string: "sdk:/Music/song.mp3")!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeCache(_ origin: SDKOrigin, policy: FetchPolicy = FetchPolicy()) throws -> SpoolCache {
        try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: origin, fetchPolicy: policy))
    }

    func testSecondReadAndNewInstanceCostNothing() async throws {
        let content = randomBytes(count: 3_000_000, seed: 1)
        let origin = SDKOrigin(content: content)
        do {
            let cache = try makeCache(origin)
            let first = try await collect(cache.read(url, from: 100_000, length: 1_500_000))
            XCTAssertEqual(first, content.subdata(in: 100_000..<1_600_000))
            XCTAssertEqual(origin.statistics.bytesServed, 1_500_000)
            let again = try await collect(cache.read(url, from: 200_000, length: 1_000_000))
            XCTAssertEqual(again, content.subdata(in: 200_000..<1_200_000))
            XCTAssertEqual(origin.statistics.bytesServed, 1_500_000, "a cached range must not be fetched again")
        }
        let reopened = try makeCache(origin)
        origin.setOffline(true)
        let fromDisk = try await collect(reopened.read(url, from: 100_000, length: 1_500_000))
        XCTAssertEqual(fromDisk, content.subdata(in: 100_000..<1_600_000))
        let info = try await reopened.contentInfo(for: url)
        XCTAssertEqual(info.length, 3_000_000)
        XCTAssertEqual(info.mimeType, "audio/mpeg")
        do {
            _ = try await collect(reopened.read(url, from: 0, length: 200_000))
            XCTFail("bytes that are not cached cannot come from an offline origin")
        } catch let error as SpoolError {
            guard case .network = error else { return XCTFail("unexpected \(error)") }
        }
    }

    func testConcurrentReadersShareOneDownload() async throws {
        let content = randomBytes(count: 2_000_000, seed: 2)
        let origin = SDKOrigin(content: content)
        origin.chunkDelay = .milliseconds(1)
        let cache = try makeCache(origin)
        let url = url
        let results = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<4 { group.addTask { try await collect(cache.read(url)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for result in results { XCTAssertEqual(result, content) }
        XCTAssertEqual(
            origin.statistics.bytesServed, 2_000_000, "four readers of the same bytes share the origin requests")
    }

    func testCancelledReaderKeepsWhatArrivedAndStopsFetching() async throws {
        let content = randomBytes(count: 8_000_000, seed: 3)
        let origin = SDKOrigin(content: content)
        origin.chunkDelay = .milliseconds(2)
        let cache = try makeCache(origin, policy: FetchPolicy(abandonedRequestGrace: 0.1))
        var received = Data()
        for try await chunk in cache.read(url) {
            received.append(chunk)
            if received.count >= 100_000 { break }
        }
        XCTAssertEqual(received, content.prefix(received.count))
        // Its requests go on for the grace, for a read that comes back; this origin's bodies keep coming
        // whether read or not, so they are stored as they come. Then they stop: no request of it runs.
        let resource = Resource(url: url)
        let stopped = await arrives("the origin request stops after the grace") {
            await cache.requestsEnded(for: resource)
        }
        XCTAssertTrue(stopped, "the origin request stops after the grace")
        XCTAssertFalse(cache.isFetching(resource))
        let servedAfterCancel = origin.statistics.bytesServed
        XCTAssertLessThan(servedAfterCancel, 600_000, "an abandoned read costs at most about one piece")
        let cached = await cache.entry(for: url)?.cachedRanges
        XCTAssertTrue(
            cached?.contains(0..<Int64(received.count)) ?? false, "bytes received before the cancel stay cached")
        // Chunks the origin had queued but the engine had not taken when it cancelled are all that may be lost.
        XCTAssertLessThanOrEqual(cached?.byteCount ?? 0, servedAfterCancel)
        XCTAssertGreaterThanOrEqual(cached?.byteCount ?? 0, servedAfterCancel - 2 * Int64(origin.chunkSize))
    }

    func testChangedResourceDropsOldBytesAndNeverMixesVersions() async throws {
        let first = randomBytes(count: 1_000_000, seed: 4)
        let second = randomBytes(count: 1_000_000, seed: 5)
        let origin = SDKOrigin(content: first)
        let cache = try makeCache(origin)
        _ = try await collect(cache.read(url, from: 0, length: 400_000))
        origin.replace(with: second)
        // Cached bytes of version 1 come first; the gap's fetch reveals version 2.
        do {
            let mixed = try await collect(cache.read(url, from: 300_000, length: 400_000))
            XCTFail("a read across versions must fail, got \(mixed.count) bytes")
        } catch SpoolError.resourceChanged {}
        let fresh = try await collect(cache.read(url))
        XCTAssertEqual(fresh, second)
        let foundEntry1 = await cache.entry(for: url)
        XCTAssertEqual(foundEntry1?.info.entityTag, "\"v2\"")
    }

    func testReadsBeyondTheEnd() async throws {
        let origin = SDKOrigin(content: randomBytes(count: 1000, seed: 6))
        let cache = try makeCache(origin)
        let tail = try await collect(cache.read(url, from: 900, length: 5000))
        XCTAssertEqual(tail.count, 100)
        let empty = try await collect(cache.read(url, from: 1000))
        XCTAssertEqual(empty.count, 0)
        do {
            _ = try await collect(cache.read(url, from: 1001))
            XCTFail("a read starting beyond the end must fail")
        } catch SpoolError.rangeNotSatisfiable(let requested, let length) {
            XCTAssertEqual(requested, 1001)
            XCTAssertEqual(length, 1000)
        }
    }
}

/// Prefetching shares downloads with playback and gives way to it.
final class PrefetchTests: XCTestCase {
    func testPrefetchWaitsWhilePlaybackWaitsForTheOrigin() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let playing = SDKOrigin(content: randomBytes(count: 1_000_000, seed: 8))
        playing.chunkDelay = .milliseconds(5)
        let next = SDKOrigin(content: randomBytes(count: 1_000_000, seed: 9))
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: playing))
        let current = Resource(url: URL(string: "sdk:/current.mp3")!, origin: playing)
        let upcoming = Resource(url: URL(string: "sdk:/next.mp3")!, origin: next)
        _ = try await cache.contentInfo(for: upcoming)

        let playback = Task { try await collect(cache.read(current)) }
        let gate = cache.gate
        let waiting = await arrives("playback waits for its first bytes") { await gate.until { $0.waits > 0 } }
        XCTAssertTrue(waiting)
        let prefetch = Task { try await cache.prefetch(upcoming, length: 300_000) }
        let gaveWay = await arrives("the prefetch waits for playback") { await gate.until { $0.watchers > 0 } }
        XCTAssertTrue(gaveWay)
        XCTAssertEqual(next.statistics.reads, 0, "no prefetch request while playback waits for bytes")
        let played = try await playback.value
        XCTAssertEqual(played.count, 1_000_000)
        let prefetched = try await prefetch.value
        XCTAssertEqual(prefetched, 300_000)
        XCTAssertEqual(next.statistics.bytesServed, 300_000)

        // Playback of what was prefetched costs nothing more.
        let start = try await collect(cache.read(upcoming, from: 0, length: 300_000))
        XCTAssertEqual(start.count, 300_000)
        XCTAssertEqual(next.statistics.bytesServed, 300_000)
    }
}

final class CachedRangesTests: XCTestCase {
    func testCachedRangesAgreeWithTheIndexWhileActiveAndAfterwards() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = SDKOrigin(content: randomBytes(count: 500_000, seed: 12))
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: origin))
        let resource = Resource(url: URL(string: "sdk:/ranges.mp3")!)
        let storedRanges1 = await cache.cachedRanges(for: resource)
        XCTAssertTrue(storedRanges1.isEmpty)
        var iterator = cache.read(resource, from: 100_000, length: 200_000).makeAsyncIterator()
        var taken = 0
        while let chunk = try await iterator.next() { taken += chunk.count }
        XCTAssertEqual(taken, 200_000)
        let storedRanges2 = await cache.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges2.ranges, [100_000..<300_000])
        await cache.close()
        let reopened = try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: origin))
        let storedRanges3 = await reopened.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges3.ranges, [100_000..<300_000])
        let foundEntry2 = await reopened.entry(for: resource)
        let storedRanges4 = await reopened.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges4, foundEntry2?.cachedRanges)
    }
}
