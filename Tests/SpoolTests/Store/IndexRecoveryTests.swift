import Foundation
import Spool
import SpoolTesting
import XCTest

/// A damaged or lying index loses cached data at worst; it never makes the cache serve wrong bytes.
final class IndexRecoveryTests: XCTestCase {
    private func indexFiles(_ directory: URL) -> [URL] {
        filesUnder(directory.appendingPathComponent("index"))
    }

    func testGarbledIndexRecordIsIgnoredAndBytesAreFetchedAgain() async throws {
        let fixture = try HTTPFixture(test: self, length: 600_000)
        let cache = try fixture.makeCache()
        _ = try await collect(cache.read(fixture.url))
        await cache.close()
        let records = indexFiles(fixture.directory)
        XCTAssertEqual(records.count, 1)
        try Data("{ not json".utf8).write(to: records[0])
        fixture.origin.resetCounters()
        let reopened = try fixture.makeCache()
        let foundEntry1 = await reopened.entry(for: fixture.url)
        XCTAssertNil(foundEntry1)
        let data = try await collect(reopened.read(fixture.url))
        XCTAssertEqual(data, fixture.bytes(0..<600_000))
        XCTAssertEqual(fixture.origin.bodyBytesSent, 600_000)
    }

    func testARecordIsReplacedWholeAndReadableByItsUserOnly() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        let cache = try fixture.makeCache()
        // Two writes of the record: the first bytes, then the rest.
        _ = try await collect(cache.read(fixture.url, from: 0, length: 100_000))
        _ = try await collect(cache.read(fixture.url))
        await cache.close()
        let names = try FileManager.default.contentsOfDirectory(
            atPath: fixture.directory.appendingPathComponent("index").path)
        XCTAssertEqual(names.count, 1, "the record and no temporary file: \(names)")
        XCTAssertEqual(names.first.map { ($0 as NSString).pathExtension }, "json")
        let record = try XCTUnwrap(indexFiles(fixture.directory).first)
        let attributes = try FileManager.default.attributesOfItem(atPath: record.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let reopened = try fixture.makeCache()
        let foundEntry = await reopened.entry(for: fixture.url)
        XCTAssertEqual(foundEntry?.cachedRanges.ranges, [0..<300_000])
    }

    func testClaimsBeyondTheDataFileAreNotBelieved() async throws {
        let fixture = try HTTPFixture(test: self, length: 600_000)
        let cache = try fixture.makeCache()
        _ = try await collect(cache.read(fixture.url, from: 0, length: 300_000))
        await cache.close()
        // Simulate a crash that lost the data file's tail after the index was written.
        let data = filesUnder(fixture.directory.appendingPathComponent("data")).filter { $0.pathExtension != "sums" }
        XCTAssertEqual(data.count, 1)
        let handle = try FileHandle(forWritingTo: data[0])
        try handle.truncate(atOffset: 100_000)
        try handle.close()
        let reopened = try fixture.makeCache()
        let foundEntry2 = await reopened.entry(for: fixture.url)
        XCTAssertEqual(foundEntry2?.cachedRanges.ranges, [0..<100_000])
        let all = try await collect(reopened.read(fixture.url))
        XCTAssertEqual(all, fixture.bytes(0..<600_000))
    }

    func testIndexRecordIsWrittenAfterTheBytesAndSurvivesARestart() async throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000)
        do {
            let cache = try fixture.makeCache()
            _ = try await collect(cache.read(fixture.url, from: 500_000, length: 700_000))
        }
        fixture.origin.stop()
        let reopened = try fixture.makeCache()
        let foundEntry3 = await reopened.entry(for: fixture.url)
        XCTAssertEqual(foundEntry3?.cachedRanges.ranges, [500_000..<1_200_000])
        let info = try await reopened.contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 2_000_000)
        let again = try await collect(reopened.read(fixture.url, from: 600_000, length: 100_000))
        XCTAssertEqual(again, fixture.bytes(600_000..<700_000))
    }
}
