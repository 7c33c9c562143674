import Foundation
import Spool
import SpoolTesting
import XCTest

/// A cache cleared by another process (`spool clear` while an app or `spool serve` runs): the running cache's
/// next read sees it (fetches again instead of serving bytes of a file that is gone) and the removed file's
/// disk space is freed, with no record left claiming bytes the directory does not have (issue 45, item 4).
final class ClearedByAnotherProcessTests: XCTestCase {
    private let length: Int64 = 3_000_001
    private let seed: UInt64 = 0xC1EA

    /// The files of `directory` this process holds open although they were removed.
    private func removedFilesHeldOpen(under directory: URL) throws -> [String] {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        return descriptors.compactMap { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")
            else { return nil }
            return target.hasPrefix(directory.resolvingSymlinksInPath().path) && target.hasSuffix(" (deleted)")
                ? target : nil
        }
    }

    func testTheNextReadAfterAnotherProcessClearsTheCacheFetchesAgainAndTheSpaceIsFreed() async throws {
        #if !os(Linux)
        throw XCTSkip("reads /proc/self/fd")
        #endif
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: length, seed: seed), at: "/track.mp3", contentType: "audio/mpeg")
        let url = origin.url(for: "/track.mp3")
        let directory = try Durability.scratch(self, "cleared-elsewhere")
        let cache = try Durability.openCache(directory)
        let expected: (Range<Int64>) -> Data = { TestContent.generatedBytes(seed: self.seed, range: $0) }
        try await Durability.verifyRead(cache, url, 0..<length, expected: expected)
        let requestsWhenCached = origin.requestCount
        // Cached: a second read asks the origin nothing (the entry stays open, idle, for its next reader).
        try await Durability.verifyRead(cache, url, 0..<length, expected: expected)
        XCTAssertEqual(origin.requestCount, requestsWhenCached)

        let cleared = try await Durability.spool(["clear", "--cache", directory.path])
        XCTAssertEqual(cleared.status, 0, cleared.stderr)
        XCTAssertEqual(
            try removedFilesHeldOpen(under: directory).count, 2,
            "the open entry still holds its removed data and checksum files")

        // The next read sees the clear: every byte again from the origin, none from the removed file.
        try await Durability.verifyRead(cache, url, 0..<length, expected: expected)
        XCTAssertGreaterThan(origin.requestCount, requestsWhenCached, "fetched again, not served from a removed file")
        XCTAssertEqual(try removedFilesHeldOpen(under: directory), [], "the removed files are closed: space freed")
        await cache.close()

        // What the directory holds now is the new read's, and serves every byte with the origin gone.
        origin.stop()
        let offline = try Durability.openCache(directory, origin: Durability.UnreachableOrigin())
        let claimed = await offline.entry(for: url)?.cachedRanges.byteCount
        XCTAssertEqual(claimed, length)
        try await Durability.verifyRead(offline, url, 0..<length, expected: expected)
        await offline.close()
    }
}
