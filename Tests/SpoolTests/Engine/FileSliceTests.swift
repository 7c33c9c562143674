import Foundation
import XCTest

@testable import Spool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Stored bytes lent as file slices (what the proxy sends with `sendfile`): exact bytes, only checked ones,
/// and a new version that waits for them instead of emptying the file under a send.
final class FileSliceTests: XCTestCase {
    private var directory: URL!
    private let url = URL(string: "sdk:/Video/clip.mp4")!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeCache(_ origin: SDKOrigin, key: Data? = nil) throws -> SpoolCache {
        try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: origin, encryptionKey: key))
    }

    func testSlicesCarryExactlyTheStoredBytes() async throws {
        let content = randomBytes(count: 3_000_000, seed: 11)
        let origin = SDKOrigin(content: content)
        let cache = try makeCache(origin)
        _ = try await collect(cache.read(url))

        var iterator = PartReader(cache, url, from: 5, length: 2_900_000)
        var received = Data()
        var slices = 0
        while let part = try await iterator.nextPart(revoke: {}) {
            switch part {
            case .bytes(let data):
                received.append(data)
            case .file(let slice):
                slices += 1
                XCTAssertEqual(slice.offset, Int64(5 + received.count), "a slice starts where the read is")
                received.append(try readAndClose(slice))
                slice.release()
            }
        }
        XCTAssertEqual(received, content.subdata(in: 5..<2_900_005))
        XCTAssertGreaterThan(slices, 0, "bytes this process wrote are lent as slices")
        XCTAssertLessThanOrEqual(slices, 4, "slices are large: up to 4 MiB each")
    }

    func testBytesNotYetCheckedInThisProcessComeAsBytesFirst() async throws {
        let content = randomBytes(count: 600_000, seed: 12)
        let origin = SDKOrigin(content: content)
        _ = try await collect(try makeCache(origin).read(url))
        // A new instance has checked nothing: the first read of a block checks it, in memory.
        let reopened = try makeCache(origin)
        var iterator = PartReader(reopened, url)
        guard case .bytes(let first)? = try await iterator.nextPart(revoke: {}) else {
            return XCTFail("an unchecked block must be read and checked, not lent")
        }
        XCTAssertEqual(first, content.prefix(first.count))
    }

    func testBlocksCheckedBeforeAnEntryClosedStayCheckedWhenItReopens() async throws {
        let content = randomBytes(count: 600_000, seed: 17)
        let origin = SDKOrigin(content: content)
        let cache = try makeCache(origin)
        _ = try await collect(cache.read(url))
        // Closing the cache closes every entry; the next read opens them again.
        await cache.close()
        do {
            var iterator = PartReader(cache, url)
            guard case .file(let slice)? = try await iterator.nextPart(revoke: {}) else {
                return XCTFail("blocks checked in this process are lent again without reading them first")
            }
            XCTAssertEqual(try readAndClose(slice), content.prefix(slice.count))
            slice.release()
        }
        // Removed here, then stored again by another cache on the directory (another process): nothing of
        // what this one checked before applies to the new files.
        await cache.close()
        await cache.remove(url)
        let other = try makeCache(origin)
        _ = try await collect(other.read(url))
        await other.close()
        do {
            var again = PartReader(cache, url)
            guard case .bytes(let checked)? = try await again.nextPart(revoke: {}) else {
                return XCTFail("bytes this process never wrote or checked are read and checked first")
            }
            XCTAssertEqual(checked, content.prefix(checked.count))
        }
        // The same when the other process removed the entry and stored it anew: the file is another one.
        do {
            var iterator = PartReader(cache, url)
            while let part = try await iterator.nextPart(revoke: {}) {
                if case .file(let slice) = part {
                    close(slice.descriptor)
                    slice.release()
                }
            }
        }
        await cache.close()
        // File times tick with the kernel's coarse clock (a few milliseconds): the other process writes later.
        try await Task.sleep(for: .milliseconds(20))
        await other.remove(url)
        _ = try await collect(other.read(url))
        await other.close()
        var third = PartReader(cache, url)
        guard case .bytes? = try await third.nextPart(revoke: {}) else {
            return XCTFail("a file made anew by another process is checked afresh")
        }
    }

    func testEncryptedCachesNeverLendSlices() async throws {
        let content = randomBytes(count: 800_000, seed: 13)
        let cache = try makeCache(SDKOrigin(content: content), key: Data(repeating: 7, count: 32))
        _ = try await collect(cache.read(url))
        var received = Data()
        var iterator = PartReader(cache, url)
        while let part = try await iterator.nextPart(revoke: {}) {
            guard case .bytes(let data) = part else { return XCTFail("stored bytes are ciphertext: never lent") }
            received.append(data)
        }
        XCTAssertEqual(received, content)
    }

    func testANewVersionRevokesSlicesAndWaitsForThemBeforeEmptyingTheFile() async throws {
        let first = randomBytes(count: 1_000_000, seed: 14)
        let second = randomBytes(count: 1_000_000, seed: 15)
        let origin = SDKOrigin(content: first)
        let cache = try makeCache(origin)
        _ = try await collect(cache.read(url, from: 0, length: 400_000))

        let revoked = LockedFlag()
        var iterator = PartReader(cache, url, from: 0, length: 400_000)
        guard case .file(let slice)? = try await iterator.nextPart(revoke: { revoked.set() }) else {
            return XCTFail("cached bytes written by this process are lent")
        }
        // The gap's fetch reveals version 2 while the slice is out.
        origin.replace(with: second)
        do {
            _ = try await collect(cache.read(url, from: 300_000, length: 400_000))
            XCTFail("a read across versions must fail")
        } catch SpoolError.resourceChanged {}
        XCTAssertTrue(revoked.isSet, "the holder of an old slice is told to stop sending it")

        let url = url
        let reading = Task { try await collect(cache.read(url)) }
        let engine = try XCTUnwrap(cache.openEngine(for: Resource(url: url)))
        let waits = await arrives("the new version waits for the slice") {
            await engine.context.untilWaiting(in: \.leaseWaiters)
        }
        XCTAssertTrue(waits)
        // Not emptied, not overwritten: the slice still reads version 1.
        XCTAssertEqual(try read(slice), first.prefix(slice.count))
        close(slice.descriptor)
        slice.release()
        let fresh = try await reading.value
        XCTAssertEqual(fresh, second, "once the slice is back, the new version is fetched and stored")
    }

    func testEvictionSparesSlicesOut() async throws {
        let content = randomBytes(count: 2_000_000, seed: 16)
        let origin = SDKOrigin(content: content)
        let limits = CacheLimits(maxBytes: 600_000)
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: directory, origin: origin, limits: limits))
        var iterator = PartReader(cache, url, from: 0, length: 300_000)
        _ = try await collect(cache.read(url, from: 0, length: 300_000))
        guard case .file(let slice)? = try await iterator.nextPart(revoke: {}) else {
            return XCTFail("cached bytes written by this process are lent")
        }
        // Filling the rest pushes the cache over its limit; the slice's bytes must stay.
        _ = try await collect(cache.read(url, from: 300_000, length: 1_700_000))
        await cache.enforceLimits()
        XCTAssertEqual(try readAndClose(slice), content.prefix(slice.count))
        slice.release()
    }

    private func read(_ slice: FileSlice) throws -> Data {
        var data = Data(count: slice.count)
        let count = data.withUnsafeMutableBytes {
            pread(slice.descriptor, $0.baseAddress, slice.count, off_t(slice.offset))
        }
        XCTAssertEqual(count, slice.count)
        return data
    }

    private func readAndClose(_ slice: FileSlice) throws -> Data {
        defer { close(slice.descriptor) }
        return try read(slice)
    }
}

/// A flag set from any thread.
private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }

    func set() { lock.withLock { value = true } }
}

/// The parts of a playback read of `url`, opened at the first `nextPart` as `SpoolCache.read`'s stream is.
private struct PartReader {
    let cache: SpoolCache
    let url: URL
    let offset: Int64
    let length: Int64?
    private var session: ReadSession?

    init(_ cache: SpoolCache, _ url: URL, from offset: Int64 = 0, length: Int64? = nil) {
        self.cache = cache
        self.url = url
        self.offset = offset
        self.length = length
    }

    mutating func nextPart(revoke: (@Sendable () -> Void)?) async throws -> StreamPart? {
        if session == nil {
            session = try await cache.openRead(Resource(url: url), from: offset, length: length, purpose: .playback())
        }
        return try await session?.nextPart(revoke: revoke)
    }
}
