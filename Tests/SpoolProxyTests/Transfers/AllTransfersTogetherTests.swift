import Foundation
import Spool
import SpoolDownloads
import SpoolProxy
import SpoolTesting
import XCTest

/// Every fetch ahead of playback at once against one origin: a player reading, a feed preloading, an album
/// downloading, an HLS stream pinned while a player plays it through the proxy (which reads ahead), and an
/// app's prefetches. They all go through the cache's one transfer scheduler, which starts jobs in the order it
/// promises, fetches no byte twice, and drops every job once its last subscriber has left.
final class AllTransfersTogetherTests: XCTestCase {
    func testEveryFetchAheadGoesThroughOneSchedulerInItsOrderAndFetchesEachByteOnce() async throws {
        // Two jobs at a time: the features compete for the places.
        let fixture = try await ProxyFixture(
            test: self, configuration: ProxyConfiguration(readAheadSeconds: 3),
            transferLimits: TransferLimits(total: 2, perHost: 2))
        // 3 MB/s: long enough that they overlap.
        let link = try LinkEmulator(
            upstreamPort: fixture.nginx.port,
            profile: LinkProfile(name: "shared", roundTrip: 0.01, bitsPerSecond: 24_000_000))
        defer { link.stop() }
        var lengths: [String: Int64] = [:]
        func serve(_ name: String, _ length: Int64, seed: UInt64) throws -> URL {
            try fixture.serveGenerated(name, length: length, seed: seed)
            lengths["/" + name] = length
            return link.url(for: "/" + name)
        }
        let playing = try serve("playing.bin", 2_000_000, seed: 1)
        // The album's second track is also the feed's first item.
        let tracks = [try serve("t0.bin", 1_500_000, seed: 2), try serve("t1.bin", 1_500_000, seed: 3)]
        let feed = [tracks[1], try serve("f1.bin", 1_500_000, seed: 4), try serve("f2.bin", 1_500_000, seed: 5)]
        let big = try serve("big.bin", 8_000_000, seed: 6)
        var playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n"
        for index in 0..<4 {
            _ = try serve("s\(index).ts", 150_000, seed: UInt64(10 + index))
            playlist += "#EXTINF:1.0,\ns\(index).ts\n"
        }
        try (playlist + "#EXT-X-ENDLIST\n").write(
            to: fixture.www.appendingPathComponent("s.m3u8"), atomically: true, encoding: .utf8)
        let stream = link.url(for: "/s.m3u8")
        let cache = fixture.cache

        let queue = try await DownloadQueue(cache: cache, conditions: SettableConditions(availableDiskBytes: 1 << 40))
        let preloader = SpoolPreloader(
            cache: cache, configuration: PreloadConfiguration(target: .bytes(1_000_000)),
            conditions: SettableConditions())
        let downloads = queue.events()
        let preloads = preloader.events()

        // A prefetch of a large file, left once part of it is stored: its job goes.
        let (progress, told) = AsyncStream.makeStream(of: Int64.self)
        let abandoned = Task {
            try await cache.transfer(
                Resource(url: big), span: TransferSpan(), purpose: .prefetch,
                progress: { stored, _ in told.yield(stored) })
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                // A player reads a file through the cache, from its start.
                let bytes = try await Self.collect(cache.read(playing))
                XCTAssertEqual(bytes, TestContent.generatedBytes(seed: 1, range: 0..<2_000_000))
            }
            group.addTask {
                // A player plays the stream through the proxy: the playlist, then its first segment.
                let base = try XCTUnwrap(fixture.proxy.baseURL)
                let listed = try await offPool { try Curl.fetch(try fixture.proxy.url(for: stream)).body }
                let paths = String(decoding: listed, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("/") }
                XCTAssertEqual(paths.count, 4)
                let first = try XCTUnwrap(URL(string: String(paths[0]), relativeTo: base))
                let segment = try await offPool { try Curl.fetch(first).body }
                XCTAssertEqual(segment, TestContent.generatedBytes(seed: 10, range: 0..<150_000))
            }
            group.addTask {
                // The same stream pinned for offline play.
                let summary = try await HLSPinning(cache: cache).pin(stream)
                XCTAssertEqual(summary.resources.count, 5)
            }
            group.addTask {
                try await queue.add(contentsOf: tracks.map { DownloadRequest(url: $0) })
                for await _ in downloads where queue.items.allSatisfy({ $0.state.isCompleted }) { break }
            }
            group.addTask {
                preloader.setItems(feed.map { PreloadItem(url: $0) }, current: 0)
                for await _ in preloads
                where feed.allSatisfy({ preloader.state(of: $0.absoluteString)?.isLoaded == true }) {
                    break
                }
            }
            group.addTask {
                // An app prefetches the start of the feed's second item: it shares the preload's job or bytes.
                let covered = try await cache.prefetch(feed[1], length: 500_000)
                XCTAssertEqual(covered, 500_000)
            }
            group.addTask {
                for await stored in progress where stored >= 256 * 1024 { break }
                abandoned.cancel()
                _ = await abandoned.result
            }
            try await group.waitForAll()
        }
        await fixture.proxy.readAheadSettled()
        await cache.transfers.settled()
        await cache.requestsEnded(for: Resource(url: big))
        await preloader.stop()
        await queue.stop()

        XCTAssertEqual(cache.transfers.jobCount, 0, "every job left with its last subscriber")
        let bigStored = await cache.cachedRanges(for: big).byteCount
        XCTAssertLessThan(bigStored, 8_000_000, "the abandoned prefetch's request stopped with it")

        let started = cache.transfers.started
        let purposes = Set(started.map(\.purpose))
        XCTAssertEqual(purposes, Set(TransferPurpose.allCases), "every kind of fetch ahead went through it")
        for start in started {
            if let waiting = start.earliestWaiting {
                XCTAssertLessThanOrEqual(start.purpose, waiting, "\(start) started before an earlier purpose")
            }
        }

        // No byte fetched twice: the bytes the origin sent for each file never overlap.
        let log = try fixture.nginx.accessLog()
        for (path, length) in lengths {
            var sent = ByteRangeSet()
            var twice: Int64 = 0
            for entry in log where entry.path == path && entry.bodyBytesSent > 0 {
                let start = entry.range.flatMap(Self.firstByte) ?? 0
                let range = start..<min(length, start + entry.bodyBytesSent)
                twice += sent.intersection(range).reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
                sent.insert(range)
            }
            let requests = log.filter { $0.path == path }.map { "\($0.range ?? "all"): \($0.bodyBytesSent)" }
            XCTAssertEqual(twice, 0, "\(path) had \(twice) bytes sent twice: \(requests)")
        }

        // Everything stored is right.
        for url in tracks {
            let bytes = try await Self.collect(cache.read(url))
            XCTAssertEqual(Int64(bytes.count), 1_500_000)
        }
    }

    private static func collect(_ stream: ByteStream) async throws -> Data {
        var data = Data()
        for try await chunk in stream { data.append(chunk) }
        return data
    }

    /// The first byte of a `bytes=N-…` range.
    private static func firstByte(_ range: String) -> Int64? {
        guard range.hasPrefix("bytes=") else { return nil }
        return Int64(range.dropFirst(6).prefix { $0 != "-" })
    }
}

extension DownloadState {
    fileprivate var isCompleted: Bool {
        if case .completed = self { true } else { false }
    }
}

extension PreloadState {
    fileprivate var isLoaded: Bool {
        if case .loaded = self { true } else { false }
    }
}
