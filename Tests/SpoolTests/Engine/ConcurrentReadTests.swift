import Foundation
import Spool
import SpoolTesting
import XCTest

/// Random reads and seeks by concurrent readers over a large resource: every byte right, traffic close to
/// the bytes actually wanted.
final class ConcurrentReadTests: XCTestCase {
    static let length: Int64 = 50 * 1024 * 1024

    func testRandomReadsAgainstTheTestOrigin() async throws {
        let fixture = try HTTPFixture(test: self, length: Self.length, seed: 11)
        let cache = try fixture.makeCache()
        let seed = fixture.seed
        let union = try await Self.randomReads(cache: cache, url: fixture.url) {
            TestContent.generatedBytes(seed: seed, range: $0)
        }
        let sent = fixture.origin.bodyBytesSent
        print("test origin: union of reads \(union) bytes, origin body bytes \(sent)")
        XCTAssertGreaterThanOrEqual(sent, union)
        XCTAssertLessThanOrEqual(Double(sent), Double(union) * 1.01, "origin traffic at most 1 % above the bytes read")
        // Closed first: one cache per directory and process, and `close()` is what writes the last index records
        // (without it the second cache found fewer ranges under a loaded machine, and asked the origin).
        await cache.close()
        try await Self.assertSecondPassIsFree(cache: fixture.makeCache(), url: fixture.url) {
            fixture.origin.requestCount
        }
    }

    func testRandomReadsAgainstNginx() async throws {
        let nginx = try NginxFixture(test: self, length: Self.length, seed: 12)
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: nginx.cacheDirectory))
        let union = try await Self.randomReads(cache: cache, url: nginx.url) {
            TestContent.generatedBytes(seed: 12, range: $0)
        }
        let sent = try nginx.server.totalBodyBytesSent()
        print("nginx: union of reads \(union) bytes, origin body bytes \(sent)")
        XCTAssertGreaterThanOrEqual(sent, union)
        XCTAssertLessThanOrEqual(Double(sent), Double(union) * 1.01, "origin traffic at most 1 % above the bytes read")
        await cache.close()
        let before = try nginx.server.accessLog().count
        try await Self.assertSecondPassIsFree(
            cache: SpoolCache(configuration: SpoolConfiguration(directory: nginx.cacheDirectory)), url: nginx.url
        ) {
            (try? nginx.server.accessLog().count).map { $0 - before } ?? -1
        }
    }

    private static let plan: [[Range<Int64>]] = {
        var generator = SeededGenerator(seed: 2024)
        return (0..<4).map { _ in
            (0..<50).map { _ in
                let offset = Int64.random(in: 0..<length, using: &generator)
                let size = Int64.random(in: 1...(2 * 1024 * 1024), using: &generator)
                return offset..<min(length, offset + size)
            }
        }
    }()

    /// 200 random reads (4 readers × 50, each a seek to a random offset); returns the size of their union.
    private static func randomReads(cache: SpoolCache, url: URL, source: @escaping @Sendable (Range<Int64>) -> Data)
        async throws -> Int64
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reads in plan {
                group.addTask {
                    for range in reads {
                        var position = range.lowerBound
                        for try await chunk in cache.read(url, from: range.lowerBound, length: Int64(range.count)) {
                            let expected = source(position..<(position + Int64(chunk.count)))
                            guard chunk == expected else {
                                throw SpoolError.invalidResponse("wrong bytes at \(position)")
                            }
                            position += Int64(chunk.count)
                        }
                        guard position == range.upperBound else {
                            throw SpoolError.invalidResponse("short read \(range)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        return ByteRangeSet(plan.joined()).byteCount
    }

    /// Everything read once is read again, by a new cache instance, with no origin request at all.
    private static func assertSecondPassIsFree(cache: SpoolCache, url: URL, requests: () -> Int) async throws {
        let before = requests()
        for range in plan.joined().prefix(60) {
            var count: Int64 = 0
            for try await chunk in cache.read(url, from: range.lowerBound, length: Int64(range.count)) {
                count += Int64(chunk.count)
            }
            XCTAssertEqual(count, Int64(range.count))
        }
        XCTAssertEqual(requests() - before, 0, "a second read of cached ranges makes no origin request")
    }
}
