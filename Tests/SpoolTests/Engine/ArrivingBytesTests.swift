import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// Bytes a response delivers reach the readers waiting for them from memory, as they arrive, while their
/// write to disk is still to come; only the current version's, only up to each reader's end, and a
/// player's are counted from the origin once.
final class ArrivingBytesTests: XCTestCase {
    private func chunk(_ range: Range<Int64>) -> Data { TestContent.generatedBytes(seed: 3, range: range) }

    private let all: (Int) -> Int64? = { _ in .max }

    func testAReaderTakesTheArrivedBytesOfItsVersionFromItsOffset() {
        var arriving = ArrivingBytes()
        arriving.add(chunk(1000..<2000), at: 1000, fetch: 1, versionNumber: 0)
        arriving.add(chunk(2000..<2500), at: 2000, fetch: 1, versionNumber: 0)
        XCTAssertEqual(
            arriving.bytes(at: 1500, versionNumber: 0, limit: 10_000, storedUpTo: all), chunk(1500..<2000),
            "to the chunk's end")
        XCTAssertEqual(
            arriving.bytes(at: 2000, versionNumber: 0, limit: 100, storedUpTo: all), chunk(2000..<2100),
            "at most the limit")
        XCTAssertNil(arriving.bytes(at: 999, versionNumber: 0, limit: 100, storedUpTo: all), "not arrived")
        XCTAssertNil(arriving.bytes(at: 2500, versionNumber: 0, limit: 100, storedUpTo: all), "not arrived")
        XCTAssertNil(arriving.bytes(at: 1500, versionNumber: 1, limit: 100, storedUpTo: all), "another version's bytes")
        XCTAssertEqual(
            arriving.bytes(at: 1500, versionNumber: 0, limit: 10_000, storedUpTo: { _ in 1800 }), chunk(1500..<1800),
            "only what its request will store")
        XCTAssertNil(
            arriving.bytes(at: 1500, versionNumber: 0, limit: 100, storedUpTo: { _ in nil }), "a request that ended")
        arriving.drop(fetch: 1, before: 2000)
        XCTAssertNil(
            arriving.bytes(at: 1500, versionNumber: 0, limit: 100, storedUpTo: all), "stored: read from disk now")
        XCTAssertNotNil(arriving.bytes(at: 2100, versionNumber: 0, limit: 100, storedUpTo: all))
        arriving.drop(fetch: 1)
        XCTAssertTrue(arriving.isEmpty, "the request ended")
    }

    func testBytesAPlayerTookFromMemoryAreNotFreshOnceStored() {
        var arriving = ArrivingBytes()
        arriving.add(chunk(0..<1000), at: 0, fetch: 1, versionNumber: 0)
        XCTAssertEqual(arriving.handOut(0..<600), 600)
        XCTAssertEqual(arriving.handOut(400..<700), 100, "a second read of the same bytes: from the cache")
        XCTAssertEqual(arriving.takeFresh(0..<1000).ranges, [700..<1000])
        XCTAssertEqual(arriving.takeFresh(0..<1000).ranges, [0..<1000], "counted once")
    }

    func testTheStateLetsAReaderTakeArrivingBytesOnlyUpToItsEndAndOfItsVersion() {
        var state = EngineState(policy: FetchPolicy(), info: ContentInfo(length: 10_000), stored: ByteRangeSet())
        let bounded = state.addReader(requestedEnd: 4000)
        XCTAssertEqual(state.arrivingReadLimit(reader: bounded, position: 1000), 3000)
        XCTAssertNil(state.arrivingReadLimit(reader: bounded, position: 4000), "at its end")
        XCTAssertNil(state.arrivingReadLimit(reader: 99, position: 0), "no such reader")
        state.markDelivered(reader: bounded, versionNumber: state.versionNumber + 1)
        XCTAssertNil(state.arrivingReadLimit(reader: bounded, position: 1000), "it delivered another version")
    }

    /// Another process holds the entry's data file exclusively (as one evicting it does for a moment), so the
    /// first write cannot start: the reader still gets every byte of the response, exact, as it arrives, and
    /// nothing is stored meanwhile. The read ends only once the lock goes and the bytes are stored; they then
    /// read back offline.
    func testAColdReadGetsTheBytesAsTheyArriveBeforeTheirWrite() async throws {
        let (fixture, cache, resource, holder) = try heldEntry(seed: 41)

        let length = 65_536
        let (received, delivered) = AsyncStream.makeStream(of: Data.self)
        let read = Task {
            var bytes = Data()
            for try await chunk in cache.read(fixture.url, from: 0, length: Int64(length)) {
                bytes += chunk
                if bytes.count == length { delivered.yield(bytes) }
            }
            return bytes
        }
        let all = try await Self.first(of: received, failingAfter: 60)
        XCTAssertEqual(all, fixture.bytes(0..<Int64(length)), "exact bytes, while the write waited")
        let storedRanges1 = await cache.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges1.byteCount, 0, "nothing stored: the bytes came from memory")

        holder.close()
        let whole = try await read.value
        XCTAssertEqual(whole.count, length)
        await cache.close()
        fixture.origin.stop()
        let offline = try fixture.makeCache()
        let storedRanges2 = await offline.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges2.byteCount, Int64(length), "stored once the lock went")
        let again = try await collect(offline.read(fixture.url, from: 0, length: Int64(length)))
        XCTAssertEqual(again, fixture.bytes(0..<Int64(length)), "the same bytes, read back with the origin gone")
        await offline.close()
    }

    /// A look at a resource's first bytes on the way to serving it (the proxy's check for a playlist) takes
    /// them as they arrive and does not wait for their write: the cold response's first byte waited for it.
    func testALookAtTheFirstBytesDoesNotWaitForTheirWrite() async throws {
        let (fixture, cache, resource, holder) = try heldEntry(seed: 43)

        let (received, delivered) = AsyncStream.makeStream(of: Data.self)
        let look = Task {
            let prefix = try await cache.data(of: resource, in: 0..<16, awaitsStoring: false)
            delivered.yield(prefix)
            delivered.finish()
        }
        let prefix = try await Self.first(of: received, failingAfter: 60)
        XCTAssertEqual(prefix, fixture.bytes(0..<16), "exact bytes, while the write waited")
        let storedRanges3 = await cache.cachedRanges(for: resource)
        XCTAssertEqual(storedRanges3.byteCount, 0, "nothing stored yet")
        try await look.value
        holder.close()
        await cache.close()
    }

    /// A cache over a 2 MB resource of `seed` whose entry's data file another holder locks exclusively (as a
    /// process evicting it does for a moment), so no write can start until `holder` closes.
    private func heldEntry(seed: UInt64) throws -> (HTTPFixture, SpoolCache, Resource, holder: EntryFile) {
        let fixture = try HTTPFixture(test: self, length: 2_000_000, seed: seed)
        let cache = try fixture.makeCache()
        let resource = Resource(url: fixture.url)
        let data = fixture.directory.appendingPathComponent("data", isDirectory: true)
            .appendingPathComponent(cache.key(for: resource))
        // The test stands for another process: its open may block the test's task.
        let holder = try ConcurrencyChecks.allowingBlocking { try EntryFile(url: data) }
        XCTAssertTrue(holder.lock(exclusive: true, wait: false))
        return (fixture, cache, resource, holder)
    }

    private struct NoValue: Error, CustomStringConvertible {
        let seconds: UInt64
        var description: String { "no value within \(seconds) s: the read waited for the write" }
    }

    /// The first element of `stream`, or a failure once `seconds` pass without one (the bytes would otherwise
    /// wait for the write, which waits for the test).
    private static func first(of stream: AsyncStream<Data>, failingAfter seconds: UInt64) async throws -> Data {
        try await withThrowingTaskGroup(of: Data?.self) { group in
            group.addTask {
                var iterator = stream.makeAsyncIterator()
                return await iterator.next()
            }
            group.addTask {
                try await Task.sleep(nanoseconds: seconds * 1_000_000_000)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw NoValue(seconds: seconds) }
            return value
        }
    }
}
