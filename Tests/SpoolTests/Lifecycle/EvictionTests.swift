import Foundation
import Spool
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cache limits against a real origin and real files, with a clock the test moves: least recently used
/// entries go first, as data is written; age limits apply on `enforceLimits()` and at open; pinned entries
/// and bytes a reader is about to read are never evicted; a resource larger than the limit still plays.
final class EvictionTests: XCTestCase {
    /// What a reader may hold over the limit: the block being written when the check runs.
    private let slackPerReader: Int64 = 64 * 1024
    /// How far a cache of a megabyte or more may run over its limit while it is written: the engine checks
    /// the limits every 256 KiB written, plus the block in progress.
    private let checkSlack: Int64 = 320 * 1024

    func testLeastRecentlyUsedEntriesGoFirstAsDataIsWritten() async throws {
        let limit: Int64 = 3_000_000
        let fixture = try EvictionFixture(
            test: self, lengths: ["a": 1_000_000, "b": 1_000_000, "c": 1_000_000, "d": 1_000_000])
        let cache = try fixture.makeCache(CacheLimits(maxBytes: limit))
        for (name, second) in [("a", 0.0), ("b", 10), ("c", 20)] {
            fixture.clock.set(second)
            try await fixture.readWhole(name, from: cache)
        }
        let totalBytes1 = await cache.totalBytes
        XCTAssertEqual(totalBytes1, limit, "up to the limit nothing is evicted")
        fixture.clock.set(30)
        let touched = try await collect(cache.read(fixture.url("a"), from: 500_000, length: 1000))
        XCTAssertEqual(touched, fixture.bytes("a", 500_000..<501_000))

        // d crosses the limit while it is written: b, the least recently used, makes room, chunk by chunk.
        fixture.clock.set(40)
        let peak = try await fixture.readWhole("d", from: cache)
        XCTAssertLessThanOrEqual(peak, limit + checkSlack, "the limit holds while d is written, not only at start-up")
        let totalBytes2 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes2, limit, "right after the read that crossed the limit")
        let cachedBytes1 = await fixture.cachedBytes("b", in: cache)
        XCTAssertEqual(cachedBytes1, 0, "b was the least recently used")
        for name in ["a", "c", "d"] {
            let cachedBytes2 = await fixture.cachedBytes(name, in: cache)
            XCTAssertEqual(
                cachedBytes2, fixture.length(name), "\(name) was used more recently than b")
        }
        XCTAssertLessThanOrEqual(fixture.allocatedDataBytes(), fixture.diskAllowance(for: limit), "on disk too")

        // b again: now c is the least recently used.
        fixture.clock.set(50)
        try await fixture.readWhole("b", from: cache)
        let totalBytes3 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes3, limit)
        let cachedBytes3 = await fixture.cachedBytes("c", in: cache)
        XCTAssertEqual(cachedBytes3, 0, "c was the least recently used")
        for name in ["a", "b", "d"] {
            let cachedBytes4 = await fixture.cachedBytes(name, in: cache)
            XCTAssertEqual(cachedBytes4, fixture.length(name), "\(name) stays")
        }
        XCTAssertLessThanOrEqual(fixture.allocatedDataBytes(), fixture.diskAllowance(for: limit))
        await cache.close()
    }

    func testEntriesOlderThanTheAgeLimitGoOnEnforceAndAtNextOpen() async throws {
        let limits = CacheLimits(maxAge: 3600)
        let fixture = try EvictionFixture(test: self, lengths: ["a": 300_000, "b": 200_000])
        do {
            let cache = try fixture.makeCache(limits)
            fixture.clock.set(0)
            try await fixture.readWhole("a", from: cache)
            fixture.clock.set(1800)
            try await fixture.readWhole("b", from: cache)
            fixture.clock.set(3700)
            await cache.enforceLimits()
            let foundEntry = await cache.entry(for: fixture.url("a"))
            XCTAssertNil(foundEntry, "a was last used 3700 s ago, over the 3600 s limit")
            let cachedBytes5 = await fixture.cachedBytes("b", in: cache)
            XCTAssertEqual(cachedBytes5, 200_000, "b was last used 1900 s ago")
            let listedEntries1 = await cache.entries()
            XCTAssertEqual(listedEntries1.map(\.url), [fixture.url("b").absoluteString])
            XCTAssertLessThanOrEqual(
                fixture.allocatedDataBytes(), fixture.diskAllowance(for: 200_000), "a's bytes left the disk")
            await cache.close()
        }
        fixture.clock.set(1800 + 3700)
        let reopened = try fixture.makeCache(limits)
        let listedEntries2 = await reopened.entries()
        XCTAssertEqual(listedEntries2.count, 0, "b is over the age limit when the cache opens again")
        let totalBytes4 = await reopened.totalBytes
        XCTAssertEqual(totalBytes4, 0)
        XCTAssertLessThanOrEqual(fixture.allocatedDataBytes(), fixture.diskAllowance(for: 0))
        let again = try await collect(reopened.read(fixture.url("b")))
        XCTAssertEqual(again, fixture.bytes("b", 0..<200_000), "an evicted resource is fetched again")
        await reopened.close()
    }

    func testPinnedEntriesAreNeverEvictedEvenOverTheLimits() async throws {
        let limits = CacheLimits(maxBytes: 2_000_000, maxAge: 3600)
        let fixture = try EvictionFixture(test: self, lengths: ["pinned": 3_000_000, "x": 500_000])
        do {
            let cache = try fixture.makeCache(limits)
            fixture.clock.set(0)
            try await cache.pin(fixture.url("pinned"))
            let cachedBytes6 = await fixture.cachedBytes("pinned", in: cache)
            XCTAssertEqual(
                cachedBytes6, 3_000_000, "pin downloads everything, over the limit")
            await cache.enforceLimits()
            let cachedBytes7 = await fixture.cachedBytes("pinned", in: cache)
            XCTAssertEqual(cachedBytes7, 3_000_000)

            fixture.clock.set(10)
            try await fixture.readWhole("x", from: cache)
            await cache.enforceLimits()
            let cachedBytes8 = await fixture.cachedBytes("x", in: cache)
            XCTAssertEqual(
                cachedBytes8, 0,
                "x is the only entry that may go, and the cache is over the limit")
            let cachedBytes9 = await fixture.cachedBytes("pinned", in: cache)
            XCTAssertEqual(
                cachedBytes9, 3_000_000, "the pinned entry is older than x, yet stays")

            fixture.clock.set(7200)
            await cache.enforceLimits()
            let cachedBytes10 = await fixture.cachedBytes("pinned", in: cache)
            XCTAssertEqual(cachedBytes10, 3_000_000, "over the age limit too, yet stays")
            await cache.close()
        }
        fixture.clock.set(86400)
        let reopened = try fixture.makeCache(limits)
        let entry = await reopened.entry(for: fixture.url("pinned"))
        XCTAssertEqual(entry?.cachedBytes, 3_000_000, "opening applies the limits, but not to the pinned entry")
        XCTAssertEqual(entry?.isPinned, true)
        fixture.origin.stop()
        let offline = try await collect(reopened.read(fixture.url("pinned")))
        XCTAssertTrue(offline == fixture.bytes("pinned", 0..<3_000_000), "the pinned entry plays offline")
        await reopened.close()
    }

    func testBytesAReaderIsAboutToReadAreNotEvicted() async throws {
        let limit: Int64 = 2_500_000
        let fixture = try EvictionFixture(
            test: self, lengths: ["long": 1_500_000, "x": 800_000, "y": 800_000, "z": 800_000])
        let cache = try fixture.makeCache(CacheLimits(maxBytes: limit))
        fixture.clock.set(0)
        try await fixture.readWhole("long", from: cache)

        // A reader starts on the cached resource and pauses, holding its stream: "long" stays the least
        // recently used entry while x, y and z push the cache over the limit twice.
        fixture.clock.set(10)
        var iterator = cache.read(fixture.url("long")).makeAsyncIterator()
        var received = try await iterator.next() ?? Data()
        for (name, second) in [("x", 20.0), ("y", 30), ("z", 40)] {
            fixture.clock.set(second)
            try await fixture.readWhole(name, from: cache)
        }
        let totalBytes5 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes5, limit + slackPerReader)

        fixture.origin.resetCounters()
        while let chunk = try await iterator.next() { received.append(chunk) }
        XCTAssertTrue(received == fixture.bytes("long", 0..<1_500_000), "every byte of the paused read is correct")
        XCTAssertEqual(
            fixture.origin.requests.filter { $0.path.hasSuffix("/long") }.count, 0,
            "the rest of the paused read came from the cache: its bytes were not evicted from under it")
        await cache.enforceLimits()
        let totalBytes6 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes6, limit, "once the reader is gone the limit holds again")
        await cache.close()
    }

    func testLongReadCompletesWhileOtherWritesPushOverTheLimit() async throws {
        let limit: Int64 = 1_500_000
        let fixture = try EvictionFixture(test: self, lengths: ["x": 600_000, "y": 600_000, "z": 600_000])
        // The long read comes from a slow origin of its own (about a second), the others from a fast one.
        let slow = try TestOrigin()
        addTeardownBlock { slow.stop() }
        slow.serve(.generated(length: 1_000_000, seed: 99), at: "/long", contentType: "video/mp4")
        slow.behaviour.throttleBytesPerSecond = 1_000_000
        let cache = try fixture.makeCache(CacheLimits(maxBytes: limit))
        fixture.clock.set(0)

        let longRead = Task {
            var data = Data()
            var peak: Int64 = 0
            for try await chunk in cache.read(slow.url(for: "/long")) {
                data.append(chunk)
                peak = await max(peak, cache.totalBytes)
            }
            return (data, peak)
        }
        var peak: Int64 = 0
        for (index, name) in ["x", "y", "z"].enumerated() {
            fixture.clock.set(Double(index + 1) * 10)
            peak = max(peak, try await fixture.readWhole(name, from: cache))
        }
        let (long, longPeak) = try await longRead.value
        XCTAssertTrue(
            long == TestContent.generatedBytes(seed: 99, range: 0..<1_000_000), "every byte of the long read is correct"
        )
        // Each reader keeps a window and a piece requested, which can straddle two blocks being written (a
        // clean clone once measured 153 KB over with two readers, past one block each).
        XCTAssertLessThanOrEqual(
            max(peak, longPeak), limit + 4 * slackPerReader, "two readers: at most two blocks over the limit each")
        await cache.enforceLimits()
        let totalBytes7 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes7, limit)
        XCTAssertLessThanOrEqual(fixture.allocatedDataBytes(), fixture.diskAllowance(for: limit))
        await cache.close()
    }

    func testResourceLargerThanTheLimitPlaysAndItsOldestPiecesGoFirst() async throws {
        let limit: Int64 = 1_000_000
        let length: Int64 = 4_000_000
        let fixture = try EvictionFixture(test: self, lengths: ["big": length])
        let cache = try fixture.makeCache(CacheLimits(maxBytes: limit))
        fixture.clock.set(0)
        var position: Int64 = 0
        var peak: Int64 = 0
        var diskPeak: Int64 = 0
        for try await chunk in cache.read(fixture.url("big")) {
            let range = position..<(position + Int64(chunk.count))
            guard chunk == fixture.bytes("big", range) else { return XCTFail("wrong bytes at \(range)") }
            position = range.upperBound
            fixture.clock.set(Double(position) / 100_000)
            peak = await max(peak, cache.totalBytes)
            diskPeak = max(diskPeak, fixture.allocatedDataBytes())
        }
        XCTAssertEqual(position, length, "the whole resource played")
        XCTAssertLessThanOrEqual(
            peak, limit + slackPerReader, "one reader: at most one block over the limit while it plays")
        XCTAssertLessThanOrEqual(diskPeak, fixture.diskAllowance(for: limit + slackPerReader), "on disk too")
        let totalBytes8 = await cache.totalBytes
        XCTAssertLessThanOrEqual(totalBytes8, limit)
        let kept = await cache.cachedRanges(for: Resource(url: fixture.url("big")))
        XCTAssertTrue(kept.contains((length - 65_536)..<length), "the most recently played bytes stay: \(kept)")
        XCTAssertFalse(kept.contains(0..<65_536), "the first bytes played went first: \(kept)")
        await cache.close()
    }
}

/// A test origin serving generated resources by name, a cache directory, and the clock the cache sees.
private struct EvictionFixture {
    let origin: TestOrigin
    let directory: URL
    let clock = MovableClock()
    private let lengths: [String: Int64]

    init(test: XCTestCase, lengths: [String: Int64]) throws {
        origin = try TestOrigin()
        directory = try makeTemporaryDirectory()
        self.lengths = lengths
        for (name, length) in lengths {
            origin.serve(.generated(length: length, seed: Self.seed(name)), at: "/\(name)", contentType: "video/mp4")
        }
        let origin = origin
        let directory = directory
        test.addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    private static func seed(_ name: String) -> UInt64 {
        name.utf8.reduce(17) { $0 &* 31 &+ UInt64($1) }
    }

    /// A cache on the directory with `limits` and the fixture's clock (a new instance each call).
    func makeCache(_ limits: CacheLimits) throws -> SpoolCache {
        try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 10), fetchPolicy: FetchPolicy(), limits: limits,
                clock: clock.base))
    }

    func url(_ name: String) -> URL { origin.url(for: "/\(name)") }

    func length(_ name: String) -> Int64 { lengths[name]! }

    func bytes(_ name: String, _ range: Range<Int64>) -> Data {
        TestContent.generatedBytes(seed: Self.seed(name), range: range)
    }

    func cachedBytes(_ name: String, in cache: SpoolCache) async -> Int64 {
        await cache.cachedRanges(for: Resource(url: url(name))).byteCount
    }

    /// Reads all of `name`, checking every chunk; returns the largest `totalBytes` seen after a chunk.
    @discardableResult
    func readWhole(_ name: String, from cache: SpoolCache) async throws -> Int64 {
        var position: Int64 = 0
        var peak: Int64 = 0
        for try await chunk in cache.read(url(name)) {
            let range = position..<(position + Int64(chunk.count))
            guard chunk == bytes(name, range) else { throw EvictionTestFailure("wrong bytes of \(name) at \(range)") }
            position = range.upperBound
            peak = await max(peak, cache.totalBytes)
        }
        guard position == length(name) else {
            throw EvictionTestFailure("read \(position) of \(length(name)) bytes of \(name)")
        }
        return peak
    }

    /// The bytes the data files take on disk (allocated blocks: the files are sparse).
    func allocatedDataBytes() -> Int64 {
        filesUnder(directory.appendingPathComponent("data", isDirectory: true)).reduce(0) { total, file in
            var status = stat()
            guard stat(file.path, &status) == 0 else { return total }
            return total + Int64(status.st_blocks) * 512
        }
    }

    /// What `bytes` of media may take on disk: file-system blocks, checksums and seals round up a little.
    func diskAllowance(for bytes: Int64) -> Int64 {
        let files = Int64(filesUnder(directory.appendingPathComponent("data", isDirectory: true)).count)
        return bytes + bytes / 50 + files * 16 * 1024
    }
}

/// The time the cache sees, set by the test: seconds after a fixed start.
private final class MovableClock: Sendable {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)
    let base = SetDateClock(Date(timeIntervalSince1970: 1_800_000_000))

    func set(_ secondsAfterStart: TimeInterval) {
        base.set(start.addingTimeInterval(secondsAfterStart))
    }
}

private struct EvictionTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
