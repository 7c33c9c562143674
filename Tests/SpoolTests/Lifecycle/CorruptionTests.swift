import Foundation
import Spool
import SpoolTesting
import XCTest

/// Integrity (issue 5): damaged data files and damaged or missing index records. Every later read returns
/// correct bytes with no error exposed to the reader; damaged data is dropped and fetched again (only the
/// damaged part), `onProblem` hears of it, and the cache always opens.
final class CorruptionTests: XCTestCase {
    private let length: Int64 = 4_001_234
    private let seed: UInt64 = 0xC0_22

    private struct Setup {
        let origin: TestOrigin
        let url: URL
        let directory: URL
        let key: String
        var dataFile: URL { directory.appendingPathComponent("data").appendingPathComponent(key) }
        var record: URL { directory.appendingPathComponent("index").appendingPathComponent(key + ".json") }
    }

    /// An origin serving the test content, and a cache holding `ranges` of it (all by default), closed.
    private func filledCache(_ ranges: [Range<Int64>]? = nil) async throws -> Setup {
        let origin = try TestOrigin()
        addTeardownBlock { origin.stop() }
        origin.serve(.generated(length: length, seed: seed), at: "/media/corrupt.mp4", contentType: "video/mp4")
        let url = origin.url(for: "/media/corrupt.mp4")
        let directory = try Durability.scratch(self, "corrupt")
        let cache = try Durability.openCache(directory)
        for range in ranges ?? [0..<length] {
            try await Durability.verifyRead(cache, url, range, expected: expected)
        }
        await cache.close()
        let setup = Setup(origin: origin, url: url, directory: directory, key: cache.key(for: Resource(url: url)))
        XCTAssertTrue(FileManager.default.fileExists(atPath: setup.dataFile.path), "data file at data/<key>")
        XCTAssertTrue(FileManager.default.fileExists(atPath: setup.record.path), "index record at index/<key>.json")
        origin.resetCounters()
        return setup
    }

    private func expected(_ range: Range<Int64>) -> Data {
        TestContent.generatedBytes(seed: seed, range: range)
    }

    /// Opens a new cache on the damaged directory and reads everything: must not throw, must be exact.
    /// Returns the origin bytes it took and the problems reported.
    @discardableResult
    private func readEverything(
        _ setup: Setup, label: String, problems: Durability.ProblemLog = Durability.ProblemLog()
    ) async throws -> Int64 {
        let cache: SpoolCache
        do {
            cache = try Durability.openCache(setup.directory, problems: problems)
        } catch {
            XCTFail("\(label): the cache does not open: \(error)")
            throw error
        }
        _ = await cache.entries()
        setup.origin.resetCounters()
        do {
            try await Durability.verifyRead(cache, setup.url, 0..<length, expected: expected)
        } catch {
            XCTFail("\(label): \(error)")
        }
        await cache.close()
        return setup.origin.bodyBytesSent
    }

    /// After healing: a new cache serves every byte with the origin unreachable (the index claims only
    /// what is really there, and the refetched bytes were stored again).
    private func assertHealed(_ setup: Setup, label: String) async throws {
        let problems = Durability.ProblemLog()
        let cache = try Durability.openCache(
            setup.directory, origin: Durability.UnreachableOrigin(), problems: problems)
        do {
            try await Durability.verifyRead(cache, setup.url, 0..<length, expected: expected)
        } catch {
            XCTFail("\(label): after the refetch, the cache does not serve everything offline: \(error)")
        }
        XCTAssertEqual(problems.all, [], "\(label): healed cache reports no further problem")
        await cache.close()
    }

    // MARK: (a) damaged data

    func testOverwrittenBytesInTheDataFileAreDroppedAndFetchedAgainTransparently() async throws {
        let setup = try await filledCache()
        let fileSize = Durability.size(setup.dataFile)
        // Three places in the middle of the data file, 200 bytes each, plus one at the very end.
        let places = [fileSize / 5, fileSize / 2, fileSize * 4 / 5, fileSize - 100]
        for place in places {
            try Durability.flipBytes(of: setup.dataFile, at: place, count: place == fileSize - 100 ? 100 : 200)
        }

        // Random access first: a small read inside the damaged middle block.
        let problems = Durability.ProblemLog()
        setup.origin.resetCounters()
        do {
            let cache = try Durability.openCache(setup.directory, problems: problems)
            let middle = fileSize / 2
            try await Durability.verifyRead(cache, setup.url, (middle - 500)..<(middle + 500), expected: expected)
            await cache.close()
        } catch {
            XCTFail("small read inside a damaged block: \(error)")
        }
        let forSmallRead = setup.origin.bodyBytesSent
        let refetched =
            try await readEverything(setup, label: "after overwriting \(places.count) places", problems: problems)
            + forSmallRead
        let reported = problems.corruptRanges
        print(
            "[corruption] overwrote \(places.count) places of a \(length)-byte entry (data file \(fileSize) bytes): "
                + "origin sent \(refetched) bytes to repair; corruptData reported for \(reported)")
        XCTAssertGreaterThan(refetched, 0, "the damaged bytes must come from the origin again")
        XCTAssertLessThan(refetched, length / 4, "only the damaged blocks are fetched again, not the whole file")
        XCTAssertFalse(reported.isEmpty, "onProblem hears .corruptData: \(problems.all)")
        if fileSize == length {
            // Data stored at resource offsets: each damaged offset lies in a reported range.
            for place in places {
                XCTAssertTrue(reported.contains { $0.contains(place) }, "damage at \(place) reported: \(reported)")
            }
        }
        try await assertHealed(setup, label: "overwritten data")
    }

    /// The entry's other files beside its data (its checksum slots, `data/KEY.sums` today): damage there
    /// costs the blocks they vouch for, like damaged data.
    func testDamagedChecksumFileIsHandledLikeDamagedData() async throws {
        let setup = try await filledCache()
        let companions = Durability.files(under: setup.directory.appendingPathComponent("data"))
            .filter { $0.lastPathComponent.hasPrefix(setup.key) && $0.lastPathComponent != setup.key }
        guard !companions.isEmpty else {
            throw XCTSkip("NOT RUN: no per-entry checksum file beside data/\(setup.key); nothing to damage")
        }
        for file in companions {
            let size = Durability.size(file)
            for place in [size / 3, size * 2 / 3] { try Durability.flipBytes(of: file, at: place, count: 8) }
        }
        let problems = Durability.ProblemLog()
        let refetched = try await readEverything(
            setup, label: "damaged \(companions.map(\.lastPathComponent))", problems: problems)
        print(
            "[corruption] damaged checksum file(s) in 2 places: origin sent \(refetched) bytes; corruptData for "
                + "\(problems.corruptRanges)"
        )
        XCTAssertGreaterThan(refetched, 0)
        XCTAssertLessThan(refetched, length / 4, "only the blocks whose checksums were damaged are fetched again")
        XCTAssertFalse(problems.corruptRanges.isEmpty, ".corruptData reported: \(problems.all)")
        try await assertHealed(setup, label: "damaged checksum file")
    }

    func testDamagedBytesWithTheOriginDownFailTheReadRatherThanServeWrongBytes() async throws {
        let setup = try await filledCache()
        let fileSize = Durability.size(setup.dataFile)
        let damage = fileSize / 2
        try Durability.flipBytes(of: setup.dataFile, at: damage, count: 64)
        setup.origin.stop()
        let cache = try Durability.openCache(setup.directory, origin: Durability.UnreachableOrigin())
        // Far from the damage: served from disk.
        try await Durability.verifyRead(cache, setup.url, 0..<200_000, expected: expected)
        // Across the damage: whatever arrives is right, and the read fails where the bytes cannot be trusted.
        let (data, error) = await collectUntilFailure(cache.read(setup.url, from: 0, length: length))
        XCTAssertNil(
            Durability.mismatch(data, expected(0..<Int64(data.count))), "bytes served before the failure are correct")
        XCTAssertNotNil(
            error, "with the origin down the damaged block cannot be served; the read must fail, not deliver it")
        XCTAssertLessThan(Int64(data.count), length)
        print(
            "[corruption] origin down: \(data.count) correct bytes delivered before "
                + "\(error.map { "\($0)" } ?? "no error")"
        )
        await cache.close()
    }

    func testDeletedOrTruncatedDataFileLosesOnlyCachedBytes() async throws {
        for variant in ["deleted", "truncated", "emptied"] {
            let setup = try await filledCache()
            switch variant {
            case "deleted": try FileManager.default.removeItem(at: setup.dataFile)
            case "truncated":
                let handle = try FileHandle(forWritingTo: setup.dataFile)
                try handle.truncate(atOffset: UInt64(Durability.size(setup.dataFile) / 3))
                try handle.close()
            default: try Data().write(to: setup.dataFile)
            }
            let refetched = try await readEverything(setup, label: "data file \(variant)")
            print("[corruption] data file \(variant): origin sent \(refetched) bytes")
            XCTAssertGreaterThan(refetched, 0)
            try await assertHealed(setup, label: "data file \(variant)")
        }
    }

    /// A data file that cannot be opened (here a directory stands in its place) is never opened under the
    /// entry's lock: a read planned on what the record claims finds the file closed, the engine opens it off
    /// the lock (debug builds stop the process on an `open` under a lock), and when that fails the read comes
    /// from the origin. Before, the plan opened it under the lock.
    func testADataFileThatCannotBeOpenedIsOpenedOffTheLockAndTheReadComesFromTheOrigin() async throws {
        let setup = try await filledCache()
        try FileManager.default.removeItem(at: setup.dataFile)
        try FileManager.default.createDirectory(at: setup.dataFile, withIntermediateDirectories: false)
        let problems = Durability.ProblemLog()
        let refetched = try await readEverything(setup, label: "data file unopenable", problems: problems)
        XCTAssertGreaterThan(refetched, 0)
        XCTAssertTrue(
            problems.all.contains { if case .storageFailed = $0 { true } else { false } },
            "the failure is reported: \(problems.all)")
    }

    /// A record that claims more than its data file holds (the file emptied or cut short) has those claims
    /// dropped at open, and they stay dropped once the file grows again past them: merging the record on disk
    /// into the one saved must not take them back, nor must taking in "another process's" bytes. Refetching
    /// only the middle of an emptied entry wrote 1.5 MB at 2 MB; the saved record claimed everything below
    /// 2.5 MB as well, holes included (its checksums failed on the next read; in the loop of
    /// `testDeletedOrTruncatedDataFileLosesOnlyCachedBytes` it cost a refetched block its end).
    func testClaimsDroppedForAShortDataFileStayDroppedWhenTheFileGrows() async throws {
        let setup = try await filledCache()
        try Data().write(to: setup.dataFile)
        let middle: Range<Int64> = 2_000_000..<2_500_000
        let cache = try Durability.openCache(setup.directory)
        try await Durability.verifyRead(cache, setup.url, middle, expected: expected)
        let resource = Resource(url: setup.url)
        let whileOpen = await cache.cachedRanges(for: resource)
        await cache.close()
        let reopened = try Durability.openCache(setup.directory, origin: Durability.UnreachableOrigin())
        let saved = await reopened.cachedRanges(for: resource)
        await reopened.close()
        for claims in [whileOpen, saved] {
            XCTAssertFalse(claims.isEmpty)
            XCTAssertFalse(claims.contains(0..<1), "claims \(claims): the start was never fetched again")
            XCTAssertGreaterThanOrEqual(claims.ranges.first?.lowerBound ?? 0, 1_900_000, "claims \(claims)")
        }
    }

    // MARK: (b) damaged index records

    func testGarbledIndexRecordsNeverServeWrongBytesAndTheCacheStillOpens() async throws {
        let variants: [(String, (Data) throws -> Data)] = [
            ("truncated", { $0.prefix($0.count / 2) }),
            (
                "junk",
                { _ in
                    var random = SeededGenerator(seed: 99)
                    return Data((0..<300).map { _ in UInt8.random(in: 0...255, using: &random) })
                }
            ),
            ("empty", { _ in Data() }),
            ("JSON of the wrong shape", { _ in Data(#"{"format": 2, "ranges": "all"}"#.utf8) }),
            ("JSON array", { _ in Data("[1, 2, 3]".utf8) }),
        ]
        for (name, garble) in variants {
            let setup = try await filledCache()
            let original = try Data(contentsOf: setup.record)
            try garble(original).write(to: setup.record)
            let refetched = try await readEverything(setup, label: "index record \(name)")
            print(
                "[corruption] index record \(name): origin sent \(refetched) bytes (at worst the entry is lost: "
                    + "\(length))"
            )
            XCTAssertLessThanOrEqual(refetched, length + 1024 * 1024, "index record \(name): at worst one full refetch")
            try await assertHealed(setup, label: "index record \(name)")
        }
    }

    /// A well-formed record that claims bytes the data file does not hold (a hole in a sparse file reads as
    /// zeros, so the file size alone cannot tell): the checksums must catch it.
    func testIndexRecordClaimingBytesThatWereNeverWrittenIsNotBelieved() async throws {
        let holes = [1_000_000..<3_000_000 as Range<Int64>]
        for (name, claim) in [("whole resource", [[0, length]]), ("beyond the end", [[0, length + 5_000_000]])] {
            let setup = try await filledCache([0..<1_000_000, 3_000_000..<length])
            let original = try Data(contentsOf: setup.record)
            var json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: original) as? [String: Any], "record is a JSON object")
            guard json["ranges"] != nil else {
                XCTFail(
                    "no 'ranges' in the record; update this test to the record format: "
                        + "\(String(decoding: original, as: UTF8.self))"
                )
                return
            }
            json["ranges"] = ["ranges": claim]
            try JSONSerialization.data(withJSONObject: json).write(to: setup.record)
            let problems = Durability.ProblemLog()
            let refetched = try await readEverything(setup, label: "record claiming \(name)", problems: problems)
            let holeBytes = holes.reduce(Int64(0)) { $0 + $1.upperBound - $1.lowerBound }
            print(
                "[corruption] record claiming \(name) over a \(holeBytes)-byte hole: origin sent \(refetched) bytes; "
                    + "problems \(problems.all)"
            )
            XCTAssertGreaterThanOrEqual(refetched, holeBytes, "the never-written bytes come from the origin")
            XCTAssertLessThanOrEqual(refetched, length + 1024 * 1024)
            try await assertHealed(setup, label: "record claiming \(name)")
        }
    }

    // MARK: (c) missing index records

    func testDeletedIndexRecordLosesCachedDataAtWorst() async throws {
        let setup = try await filledCache()
        try FileManager.default.removeItem(at: setup.record)
        let refetched = try await readEverything(setup, label: "index record deleted")
        print("[corruption] index record deleted: origin sent \(refetched) bytes (entry of \(length))")
        XCTAssertLessThanOrEqual(refetched, length + 1024 * 1024)
        try await assertHealed(setup, label: "index record deleted")

        // The whole index directory gone.
        try FileManager.default.removeItem(at: setup.directory.appendingPathComponent("index"))
        let again = try await readEverything(setup, label: "index directory deleted")
        print("[corruption] index directory deleted: origin sent \(again) bytes")
        try await assertHealed(setup, label: "index directory deleted")
    }
}
