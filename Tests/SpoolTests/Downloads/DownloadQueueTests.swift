import Foundation
import SpoolTesting
import XCTest

@testable import Spool
@testable import SpoolDownloads

/// A download queue over a real origin: downloads complete whole and play with no origin request, survive a
/// relaunch, wait for the conditions and a disk reserve, outlive the streaming cache's limits, and go when
/// removed.
final class DownloadQueueTests: XCTestCase {
    private struct Setup {
        let origin: TestOrigin
        let directory: URL
        let urls: [URL]

        func bytes(_ index: Int, length: Int64) -> Data {
            TestContent.generatedBytes(seed: UInt64(100 + index), range: 0..<length)
        }

        func makeCache(limits: CacheLimits = CacheLimits()) throws -> SpoolCache {
            try SpoolCache(configuration: SpoolConfiguration(directory: directory, limits: limits))
        }
    }

    private func setUp(items: Int, length: Int64) throws -> Setup {
        let origin = try TestOrigin()
        let directory = try makeTemporaryDirectory()
        addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        let urls = (0..<items).map { index -> URL in
            origin.serve(
                .generated(length: length, seed: UInt64(100 + index)), at: "/album/\(index).mp3",
                contentType: "audio/mpeg")
            return origin.url(for: "/album/\(index).mp3")
        }
        return Setup(origin: origin, directory: directory, urls: urls)
    }

    /// Waits for the queue's events until `done` holds for the queue, within a hang bound.
    private func waitUntil(
        _ queue: DownloadQueue, _ events: AsyncStream<DownloadEvent>, _ what: String,
        file: StaticString = #filePath, line: UInt = #line, _ done: @escaping @Sendable (DownloadQueue) -> Bool
    ) async throws {
        let reached = try await holdsAfterEvents(events) { done(queue) }
        XCTAssertTrue(
            reached, "never: \(what); items: \(queue.items.map { "\($0.request.id) \($0.state)" })",
            file: file, line: line)
    }

    /// A queue that leaves 500 MB free and looks at the free space every 50 ms while it waits for it.
    private static func reserving500MB(_ cache: SpoolCache, _ conditions: SettableConditions) async throws
        -> DownloadQueue
    {
        try await DownloadQueue(
            cache: cache,
            configuration: DownloadConfiguration(
                rules: TransferRules(diskReserveBytes: 500_000_000), diskRecheckInterval: 0.05),
            conditions: conditions)
    }

    private static func allCompleted(_ queue: DownloadQueue) -> Bool {
        queue.items.allSatisfy { if case .completed = $0.state { true } else { false } }
    }

    /// An offline-first app queues an album on the plane: a download whose origin cannot be reached waits
    /// (`originUnreachable`), and goes on when the network is back, rather than failing.
    func testADownloadWhoseOriginIsOutOfReachWaitsAndCompletesWhenTheNetworkIsBack() async throws {
        let setup = try setUp(items: 1, length: 300_000)
        // The origin is gone: its port refuses connections.
        let port = setup.origin.port
        setup.origin.stop()
        let cache = try setup.makeCache()
        let conditions = SettableConditions(availableDiskBytes: 1 << 40)
        let queue = try await DownloadQueue(cache: cache, conditions: conditions)
        let events = queue.events()
        try await queue.add(DownloadRequest(url: setup.urls[0]))
        try await waitUntil(queue, events, "the download waits for its origin") { queue in
            queue.items[0].state == .waiting([.originUnreachable])
        }
        // The origin is back where it was, and the device tells of its network coming back.
        let back = try TestOrigin(port: port)
        addTeardownBlock { back.stop() }
        back.serve(.generated(length: 300_000, seed: 100), at: "/album/0.mp3", contentType: "audio/mpeg")
        conditions.update { $0.hasNetwork = false }
        conditions.update { $0.hasNetwork = true }
        try await waitUntil(queue, events, "completed", Self.allCompleted)
        let played = try await collect(cache.read(setup.urls[0]))
        XCTAssertEqual(played, setup.bytes(0, length: 300_000))
        await queue.stop()
        await cache.close()
    }

    /// The queue and the cache agree: a completed download whose bytes are removed (here, in this process; by
    /// another, found when the queue checks) goes back to the queue, says so, and is downloaded again.
    func testACompletedDownloadWhoseBytesAreRemovedGoesBackToTheQueueAndDownloadsAgain() async throws {
        let setup = try setUp(items: 2, length: 300_000)
        let cache = try setup.makeCache()
        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let events = queue.events()
        try await queue.add(contentsOf: setup.urls.map { DownloadRequest(url: $0, id: $0.lastPathComponent) })
        try await waitUntil(queue, events, "both completed", Self.allCompleted)
        let requestsBefore = setup.origin.requestCount

        // `spool rm` in this process: the queue hears of it from the cache.
        let heard = queue.events()
        await cache.remove(setup.urls[0])
        // Its events: back to the queue, then (after downloading) completed.
        let told = try await withinHangBound(seconds: 60) { () async -> [DownloadState?] in
            var told: [DownloadState?] = []
            for await event in heard where event.id == "0.mp3" {
                told.append(event.state)
                if told.contains(.queued), case .completed = event.state { break }
            }
            return told
        }
        XCTAssertEqual(told?.first(where: { $0 != .completed(bytes: 300_000) }), .queued, "\(told ?? [])")
        XCTAssertEqual(told?.last, .completed(bytes: 300_000))
        XCTAssertGreaterThan(setup.origin.requestCount, requestsBefore, "downloaded again")
        let played = try await collect(cache.read(setup.urls[0]))
        XCTAssertEqual(played, setup.bytes(0, length: 300_000))

        // `spool clear` in another process: the queue finds it when it checks (serve does on every list).
        let other = try setup.makeCache()
        await other.removeAll()
        await other.close()
        try await queue.checkStored()
        XCTAssertTrue(
            queue.items.allSatisfy { $0.state != .completed(bytes: 300_000) },
            "none is said to be available offline: \(queue.items.map(\.state))")
        try await waitUntil(queue, events, "both completed again", Self.allCompleted)
        await queue.stop()
        await cache.close()
    }

    func testAnAlbumDownloadsTwoAtATimeAndPlaysOfflineWithNoOriginRequest() async throws {
        let setup = try setUp(items: 6, length: 300_000)
        let cache = try setup.makeCache()
        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let events = queue.events()
        for (index, url) in setup.urls.enumerated() {
            try await queue.add(DownloadRequest(url: url, title: "Track \(index + 1)"))
        }
        XCTAssertEqual(queue.items.map(\.request.title), (1...6).map { "Track \($0)" })
        try await waitUntil(queue, events, "every track completed", Self.allCompleted)
        XCTAssertEqual(queue.items.map(\.state), Array(repeating: .completed(bytes: 300_000), count: 6))
        await queue.stop()
        await cache.close()
        XCTAssertLessThanOrEqual(setup.origin.bodyBytesSent, 6 * 300_000, "no byte was fetched twice")

        // On the plane: the origin is gone, a new cache plays every track whole from disk.
        setup.origin.stop()
        let offline = try setup.makeCache()
        for (index, url) in setup.urls.enumerated() {
            let played = try await collect(offline.read(url))
            XCTAssertEqual(played, setup.bytes(index, length: 300_000), "track \(index + 1) offline")
            let pinned = await offline.entry(for: url)?.isPinned
            XCTAssertEqual(pinned, true)
        }
        await offline.close()
    }

    func testAfterARelaunchTheQueueGoesOnFromEachFirstMissingByte() async throws {
        let setup = try setUp(items: 3, length: 2_000_000)
        setup.origin.behaviour.throttleBytesPerSecond = 500_000
        let conditions = SettableConditions(availableDiskBytes: 1 << 40)
        let cache = try setup.makeCache()
        let queue = try await DownloadQueue(cache: cache, conditions: conditions)
        let events = queue.events()
        for url in setup.urls { try await queue.add(DownloadRequest(url: url)) }
        try await waitUntil(queue, events, "the first track is under way") { queue in
            if case .downloading(let bytes, _) = queue.items[0].state { bytes > 0 } else { false }
        }
        // The app is closed mid-download.
        await queue.stop()
        await cache.close()
        let storedBefore = try setup.makeCache()
        let partial = await storedBefore.cachedRanges(for: setup.urls[0]).byteCount
        await storedBefore.close()
        XCTAssertGreaterThan(partial, 0)
        XCTAssertLessThan(partial, 2_000_000)
        let sentBefore = setup.origin.bodyBytesSent

        setup.origin.behaviour.throttleBytesPerSecond = nil
        let relaunched = try setup.makeCache()
        let queue2 = try await DownloadQueue(cache: relaunched, conditions: conditions)
        let events2 = queue2.events()
        XCTAssertEqual(queue2.items.map(\.request.url), setup.urls, "the queue was written down")
        try await waitUntil(queue2, events2, "every track completed", Self.allCompleted)
        await queue2.stop()
        for (index, url) in setup.urls.enumerated() {
            let data = try await collect(relaunched.read(url))
            XCTAssertEqual(data, setup.bytes(index, length: 2_000_000))
        }
        await relaunched.close()
        // What the first run had stored was not asked for again; what it had in flight when it stopped (a
        // socket's buffers) is the only slack.
        XCTAssertLessThanOrEqual(
            setup.origin.bodyBytesSent - sentBefore, 3 * 2_000_000 - partial + 512 * 1024,
            "the relaunch fetched stored bytes again")
    }

    func testConditionsHoldDownloadsBackAndReleaseThem() async throws {
        let setup = try setUp(items: 2, length: 200_000)
        // Cellular, in Low Power Mode: two reasons to wait.
        let conditions = SettableConditions(
            DeviceConditions(isExpensive: true, isLowPowerMode: true), availableDiskBytes: 1 << 40)
        let cache = try setup.makeCache()
        let queue = try await DownloadQueue(cache: cache, conditions: conditions)
        let events = queue.events()
        for url in setup.urls { try await queue.add(DownloadRequest(url: url)) }
        try await waitUntil(queue, events, "both wait for Wi-Fi and power") { queue in
            queue.items.allSatisfy { $0.state == .waiting([.expensiveNetwork, .lowPowerMode]) }
        }
        XCTAssertEqual(setup.origin.requestCount, 0, "no request while the conditions hold it back")
        conditions.update { $0.isLowPowerMode = false }
        try await waitUntil(queue, events, "both wait for Wi-Fi") { queue in
            queue.items.allSatisfy { $0.state == .waiting([.expensiveNetwork]) }
        }
        conditions.update { $0.isExpensive = false }
        try await waitUntil(queue, events, "both completed", Self.allCompleted)
        await queue.stop()
        await cache.close()
    }

    func testADiskReserveStopsDownloadsBeforeTheDiskFills() async throws {
        let setup = try setUp(items: 1, length: 200_000)
        let conditions = SettableConditions(availableDiskBytes: 100_000_000)
        let cache = try setup.makeCache()
        let queue = try await Self.reserving500MB(cache, conditions)
        let events = queue.events()
        try await queue.add(DownloadRequest(url: setup.urls[0]))
        try await waitUntil(queue, events, "the download waits for disk space") { queue in
            queue.items[0].state == .waiting([.lowDiskSpace])
        }
        XCTAssertEqual(setup.origin.requestCount, 0)
        // Space was freed: no event says so, the download's next look sees it.
        conditions.setAvailableDiskBytes(900_000_000)
        try await waitUntil(queue, events, "completed", Self.allCompleted)
        await queue.stop()
        await cache.close()
    }

    func testADiskFillingMidDownloadStopsItWithinAStepAndItGoesOnOnceSpaceIsFreed() async throws {
        let length: Int64 = 4_000_000
        let setup = try setUp(items: 1, length: length)
        setup.origin.behaviour.throttleBytesPerSecond = 2_000_000
        let conditions = SettableConditions(availableDiskBytes: 900_000_000)
        let cache = try setup.makeCache()
        let queue = try await Self.reserving500MB(cache, conditions)
        let events = queue.events()
        let url = setup.urls[0]
        try await queue.add(DownloadRequest(url: url))
        try await waitUntil(queue, events, "a part downloaded") { queue in
            if case .downloading(let bytes, _) = queue.items[0].state { bytes >= 500_000 } else { false }
        }
        // Something else fills the disk; free space has no event.
        let storedWhenFull = await cache.cachedRanges(for: url).byteCount
        conditions.setAvailableDiskBytes(400_000_000)
        try await waitUntil(queue, events, "the download waits for disk space") { queue in
            queue.items[0].state == .waiting([.lowDiskSpace])
        }
        let storedWhenStopped = await cache.cachedRanges(for: url).byteCount
        XCTAssertLessThan(storedWhenStopped, length, "it stopped before its end")
        // A look every MiB, and what was in flight (a socket's buffers) past it.
        XCTAssertLessThanOrEqual(
            storedWhenStopped - storedWhenFull, TransferRun.diskCheckStep + 512 * 1024, "it ran past the reserve")

        conditions.setAvailableDiskBytes(900_000_000)
        try await waitUntil(queue, events, "completed", Self.allCompleted)
        await queue.stop()
        let played = try await collect(cache.read(url))
        XCTAssertEqual(played, setup.bytes(0, length: length))
        XCTAssertLessThanOrEqual(
            setup.origin.bodyBytesSent, length + 512 * 1024, "what it had stored was not fetched again")
        await cache.close()
    }

    func testACompletedDownloadOutlivesTheStreamingCachesLimits() async throws {
        let setup = try setUp(items: 4, length: 1_000_000)
        // A streaming cache of 1.5 MB; the download alone is 2 MB.
        let cache = try setup.makeCache(limits: CacheLimits(maxBytes: 1_500_000))
        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let events = queue.events()
        try await queue.add(DownloadRequest(url: setup.urls[0]))
        try await queue.add(DownloadRequest(url: setup.urls[1]))
        try await waitUntil(queue, events, "both completed", Self.allCompleted)
        // Streaming fills the cache with the other two.
        for url in setup.urls[2...] { _ = try await collect(cache.read(url)) }
        await cache.enforceLimits()
        for url in setup.urls[..<2] {
            let stored = await cache.cachedRanges(for: url).byteCount
            XCTAssertEqual(stored, 1_000_000, "a download is never evicted")
        }
        let streamed = await cache.cachedRanges(for: setup.urls[2]).byteCount
        XCTAssertEqual(streamed, 0, "the streaming cache evicted its own entries")
        await queue.stop()
        await cache.close()
    }

    func testARemovedDownloadStopsAndItsBytesGoAndOneProcessRunsAQueue() async throws {
        let setup = try setUp(items: 2, length: 1_000_000)
        setup.origin.behaviour.throttleBytesPerSecond = 500_000
        let cache = try setup.makeCache()
        let conditions = SettableConditions(availableDiskBytes: 1 << 40)
        let queue = try await DownloadQueue(cache: cache, conditions: conditions)
        do {
            _ = try await DownloadQueue(cache: cache, conditions: conditions)
            XCTFail("a second queue on the same cache opened")
        } catch DownloadQueue.Failure.inUse {}
        let events = queue.events()
        try await queue.add(DownloadRequest(url: setup.urls[0], id: "a"))
        try await queue.add(DownloadRequest(url: setup.urls[1], id: "b"))
        try await waitUntil(queue, events, "a is under way") { queue in
            if case .downloading(let bytes, _) = queue.item("a")?.state { bytes > 0 } else { false }
        }
        try await queue.pause("b")
        XCTAssertEqual(queue.item("b")?.state, .paused)
        try await queue.remove("a")
        XCTAssertNil(queue.item("a"), "gone from the queue at once")
        XCTAssertEqual(queue.items.map(\.request.id), ["b"])
        // `stop()` waits for a's task, which discards what a stored once it has ended.
        await queue.stop()
        await cache.requestsEnded(for: Resource(url: setup.urls[0]))
        let entry = await cache.entry(for: setup.urls[0])
        XCTAssertNil(entry, "a removed download's bytes are gone")
        let paused = await cache.entry(for: setup.urls[1])
        XCTAssertEqual(paused?.isPinned ?? true, true, "b, paused, is still kept")
        await cache.close()
    }

    func testRemovingOneOfTwoDownloadsOfAFileKeepsTheFile() async throws {
        let setup = try setUp(items: 1, length: 300_000)
        let cache = try setup.makeCache()
        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let events = queue.events()
        // One track in an album and in a playlist: two downloads, one file.
        try await queue.add(DownloadRequest(url: setup.urls[0], id: "album/3"))
        try await queue.add(DownloadRequest(url: setup.urls[0], id: "playlist/1"))
        try await waitUntil(queue, events, "both completed", Self.allCompleted)
        try await queue.remove("album/3")
        let kept = await cache.entry(for: setup.urls[0])
        XCTAssertEqual(kept?.isPinned, true, "the playlist's download still holds the file")
        XCTAssertEqual(kept?.cachedBytes, 300_000)
        XCTAssertEqual(queue.item("playlist/1")?.state, .completed(bytes: 300_000))
        try await queue.remove("playlist/1")
        let removed = await cache.entry(for: setup.urls[0])
        XCTAssertNil(removed, "the last download of it took it away")
        await queue.stop()
        await cache.close()
    }

    func testAnHLSDownloadKeepsTheChosenVariantAndARemovalTakesItAllBack() async throws {
        let www = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: www) }
        try HLSSample.write(in: www)
        let nginx = try NginxOrigin(serving: www)
        addTeardownBlock { nginx.stop() }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: www.appendingPathComponent(".cache")))
        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let events = queue.events()
        try await queue.add(
            DownloadRequest(
                url: nginx.url(for: "master.m3u8"), id: "show", kind: .hls(variants: .bandwidth(atMost: 1_000_000))))
        try await waitUntil(queue, events, "the stream completed", Self.allCompleted)
        for name in HLSSample.lowVariant {
            let entry = await cache.entry(for: nginx.url(for: name))
            XCTAssertTrue(entry.map { $0.isPinned && $0.cachedBytes == $0.info.length } ?? false, "\(name) kept whole")
        }
        for name in HLSSample.highVariant {
            let entry = await cache.entry(for: nginx.url(for: name))
            XCTAssertNil(entry, "\(name): not the chosen variant")
        }
        // The same show again with every variant: it shares the master, the low variant and its segments.
        try await queue.add(
            DownloadRequest(url: nginx.url(for: "master.m3u8"), id: "show, all", kind: .hls(variants: .all)))
        try await waitUntil(queue, events, "both completed", Self.allCompleted)
        // Removed, offline: what it stored goes, found through the stored playlists alone, but for what the
        // other download holds too.
        nginx.stop()
        try await queue.remove("show, all")
        for name in HLSSample.lowVariant {
            let entry = await cache.entry(for: nginx.url(for: name))
            XCTAssertTrue(
                entry.map { $0.isPinned && $0.cachedBytes == $0.info.length } ?? false,
                "\(name): the other download holds it")
        }
        for name in HLSSample.highVariant {
            let entry = await cache.entry(for: nginx.url(for: name))
            XCTAssertNil(entry, "\(name): only the removed download held it")
        }
        try await queue.remove("show")
        await queue.stop()
        let left = await cache.entries().map(\.url)
        XCTAssertEqual(left, [], "every resource of the removed stream is gone")
        await cache.close()
    }
}
