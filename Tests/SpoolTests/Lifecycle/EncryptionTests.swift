import Foundation
import Spool
import SpoolTesting
import XCTest

/// Encryption at rest (issue 5): with a key, no file in the cache directory holds plaintext media bytes;
/// random access still works; an entry stored under another key (or none) is dropped and fetched again,
/// reported as `.wrongKey`, never served as garbage.
final class EncryptionTests: XCTestCase {
    /// A recognisable 32-byte ASCII marker, at the start of every 4 KiB of the content.
    private static let marker = Data("<<SPOOL-PLAINTEXT-MARKER-4242>>\n".utf8)
    private static let length = 3_000_777
    private static let content: Data = {
        var data = TestContent.generatedBytes(seed: 0xE4C, range: 0..<Int64(length))
        var offset = 0
        while offset + marker.count <= length {
            data.replaceSubrange(offset..<(offset + marker.count), with: marker)
            offset += 4096
        }
        return data
    }()

    private static func key(_ seed: UInt64) -> Data {
        var random = SeededGenerator(seed: seed)
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    private let keyA = EncryptionTests.key(1)
    private let keyB = EncryptionTests.key(2)

    private func expected(_ range: Range<Int64>) -> Data {
        Self.content.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
    }

    private func makeOrigin() throws -> (TestOrigin, URL) {
        XCTAssertEqual(Self.marker.count, 32)
        let origin = try TestOrigin()
        addTeardownBlock { origin.stop() }
        origin.serve(.data(Self.content), at: "/secret/movie.mp4", contentType: "video/mp4")
        return (origin, origin.url(for: "/secret/movie.mp4"))
    }

    /// Scans every file under `directory` for the marker, for sampled 64-byte windows of the content and for
    /// `keys`; returns what was found where. Also returns the bytes scanned, so an empty cache cannot pass.
    private func scan(_ directory: URL, keys: [Data] = []) -> (findings: [String], scanned: Int64) {
        var random = SeededGenerator(seed: 64)
        let windows = (0..<200).map { _ -> (Int, Data) in
            let start = Int.random(in: 0..<(Self.length - 64), using: &random)
            return (start, Self.content.subdata(in: start..<(start + 64)))
        }
        var findings: [String] = []
        var scanned: Int64 = 0
        for file in Durability.files(under: directory) {
            guard let data = try? Data(contentsOf: file) else { continue }
            scanned += Int64(data.count)
            let name = file.path.replacingOccurrences(of: directory.path, with: "")
            if Durability.contains(data, Self.marker) { findings.append("marker in \(name)") }
            let leaked = windows.filter { Durability.contains(data, $0.1) }
            if !leaked.isEmpty {
                findings.append("\(leaked.count) content windows in \(name) (e.g. offset \(leaked[0].0))")
            }
            for key in keys where Durability.contains(data, key) { findings.append("the key itself in \(name)") }
        }
        return (findings, scanned)
    }

    private func randomRanges(count: Int, seed: UInt64) -> [Range<Int64>] {
        var random = SeededGenerator(seed: seed)
        let length = Int64(Self.length)
        var ranges: [Range<Int64>] = [
            0..<1, (length - 1)..<length, 65_535..<65_537, 131_000..<200_000, (length - 70_000)..<length,
        ]
        while ranges.count < count {
            let start = Int64.random(in: 0..<(length - 1), using: &random)
            ranges.append(start..<min(length, start + Int64.random(in: 1...300_000, using: &random)))
        }
        return ranges
    }

    /// Reads everything through a cache with `key` that is closed and released afterwards (as by a process
    /// that exits: a live `SpoolCache` keeps its entries open); returns the entry's key.
    @discardableResult
    private func fill(_ directory: URL, _ url: URL, key: Data?) async throws -> String {
        let cache = try Durability.openCache(directory, key: key)
        try await Durability.verifyRead(cache, url, 0..<Int64(Self.length), expected: expected)
        await cache.close()
        return cache.key(for: Resource(url: url))
    }

    // MARK: Library

    func testNothingOnDiskIsPlaintextAndRandomAccessWorksWithTheRightKey() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc")
        let problems = Durability.ProblemLog()
        do {
            let cache = try Durability.openCache(directory, key: keyA, problems: problems)
            // Sparse pieces first, then everything.
            try await Durability.verifyRead(cache, url, 100_000..<300_000, expected: expected)
            try await Durability.verifyRead(cache, url, 2_000_123..<2_100_000, expected: expected)
            try await Durability.verifyRead(cache, url, 0..<Int64(Self.length), expected: expected)
            await cache.close()
        }
        let (findings, scanned) = scan(directory, keys: [keyA])
        print(
            "[encryption] scanned \(scanned) bytes in \(Durability.files(under: directory).count) files: "
                + "\(findings.isEmpty ? "no plaintext" : "\(findings)")"
        )
        XCTAssertGreaterThanOrEqual(
            scanned, Int64(Self.length), "the cache holds the entry (else the scan proves nothing)")
        XCTAssertEqual(findings, [], "plaintext media bytes (or the key) on disk")

        origin.resetCounters()
        let reopened = try Durability.openCache(directory, key: keyA, problems: problems)
        for range in randomRanges(count: 25, seed: 7) {
            try await Durability.verifyRead(reopened, url, range, expected: expected)
        }
        await reopened.close()
        XCTAssertEqual(origin.bodyBytesSent, 0, "with the right key every byte comes from the cache")
        XCTAssertEqual(problems.all, [], "no problem with the right key")
    }

    func testWrongKeyDropsTheEntryRefetchesAndReports() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-wrong")
        // Each cache is closed and released before the next opens, as by a process that exits.
        try await fill(directory, url, key: keyA)

        origin.resetCounters()
        let problems = Durability.ProblemLog()
        do {
            let wrong = try Durability.openCache(directory, key: keyB, problems: problems)
            // Random access first, then the whole: never an error, never garbage.
            for range in randomRanges(count: 10, seed: 8) {
                do {
                    try await Durability.verifyRead(wrong, url, range, expected: expected)
                } catch {
                    XCTFail("wrong key: \(error)")
                }
            }
            try await Durability.verifyRead(wrong, url, 0..<Int64(Self.length), expected: expected)
            await wrong.close()
        }
        let refetched = origin.bodyBytesSent
        print("[encryption] wrong key: origin sent \(refetched) bytes; problems \(problems.all)")
        XCTAssertGreaterThan(refetched, 0, "the entry is fetched again")
        XCTAssertGreaterThanOrEqual(problems.wrongKeyCount, 1, ".wrongKey reported: \(problems.all)")
        XCTAssertTrue(problems.corruptRanges.isEmpty, "a wrong key is not reported as corruption: \(problems.all)")

        // Now stored under key B: served from the cache with it, and still no plaintext.
        origin.resetCounters()
        try await fill(directory, url, key: keyB)
        XCTAssertEqual(origin.bodyBytesSent, 0, "after the refetch the entry is cached under the new key")
        XCTAssertEqual(scan(directory, keys: [keyA, keyB]).findings, [])
    }

    /// The cache an `onProblem` handler calls back into, set once the cache exists.
    private final class CacheHolder: @unchecked Sendable {
        // @unchecked: every access goes through `lock`.
        private let lock = NSLock()
        private var stored: SpoolCache?
        var cache: SpoolCache? {
            get {
                lock.lock()
                defer { lock.unlock() }
                return stored
            }
            set {
                lock.lock()
                stored = newValue
                lock.unlock()
            }
        }
    }

    func testAProblemHandlerMayCallBackIntoTheCache() async throws {
        let (_, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-callback")
        try await fill(directory, url, key: keyA)

        let holder = CacheHolder()
        let problems = Durability.ProblemLog()
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(timeout: 10), encryptionKey: keyB,
                onProblem: { problem in
                    problems.record(problem)
                    // What an app may well do about an entry it cannot read: drop it, which takes the cache's lock.
                    if case .wrongKey = problem { Task { await holder.cache?.remove(url) } }
                }))
        holder.cache = cache
        // A deadlock never ends: the read runs apart, and the test waits for it a bounded time.
        let finished = expectation(description: "the read ends")
        let content = Self.content
        let ended = CacheHolder()
        let reading = Task {
            defer {
                ended.cache = cache
                finished.fulfill()
            }
            try await Durability.verifyRead(cache, url, 0..<100_000) {
                content.subdata(in: Int($0.lowerBound)..<Int($0.upperBound))
            }
        }
        await fulfillment(of: [finished], timeout: 30)
        // Awaiting a deadlocked read, or closing its cache, would hang the test run instead of failing it.
        guard ended.cache != nil else {
            return XCTFail("the read never ended: the handler's call into the cache deadlocked")
        }
        try await reading.value
        XCTAssertGreaterThanOrEqual(problems.wrongKeyCount, 1, ".wrongKey reported: \(problems.all)")
        await cache.close()
    }

    func testEncryptedCacheOpenedWithoutAKeyRefetchesInsteadOfServingCiphertext() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-nokey")
        try await fill(directory, url, key: keyA)

        origin.resetCounters()
        let problems = Durability.ProblemLog()
        do {
            let plain = try Durability.openCache(directory, key: nil, problems: problems)
            do {
                try await Durability.verifyRead(plain, url, 1_000_000..<1_200_000, expected: expected)
                try await Durability.verifyRead(plain, url, 0..<Int64(Self.length), expected: expected)
            } catch {
                XCTFail("encrypted cache read without a key: \(error)")
            }
            await plain.close()
        }
        print(
            "[encryption] no key on an encrypted cache: origin sent \(origin.bodyBytesSent) bytes; problems "
                + "\(problems.all)"
        )
        XCTAssertGreaterThan(origin.bodyBytesSent, 0)
        XCTAssertGreaterThanOrEqual(problems.wrongKeyCount, 1, ".wrongKey reported: \(problems.all)")
    }

    func testPlaintextCacheOpenedWithAKeyDropsThePlaintext() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-upgrade")
        try await fill(directory, url, key: nil)
        XCTAssertFalse(scan(directory).findings.isEmpty, "control: an unencrypted cache does hold the marker")

        origin.resetCounters()
        let problems = Durability.ProblemLog()
        do {
            let keyed = try Durability.openCache(directory, key: keyA, problems: problems)
            do {
                try await Durability.verifyRead(keyed, url, 500_000..<600_000, expected: expected)
            } catch {
                XCTFail("plaintext cache read with a key: \(error)")
            }
            await keyed.close()
        }
        XCTAssertGreaterThan(origin.bodyBytesSent, 0)
        XCTAssertGreaterThanOrEqual(problems.wrongKeyCount, 1, ".wrongKey reported: \(problems.all)")
        let findings = scan(directory, keys: [keyA]).findings
        print(
            "[encryption] plaintext cache opened with a key, 100 KB read: problems \(problems.all); scan: \(findings)")
        XCTAssertEqual(findings, [], "the plaintext entry is dropped, not left on disk beside the encrypted bytes")
    }

    func testDamagedCiphertextIsDetectedAndFetchedAgain() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-damage")
        let key = try await fill(directory, url, key: keyA)
        let dataFile = directory.appendingPathComponent("data").appendingPathComponent(key)
        let size = Durability.size(dataFile)
        XCTAssertGreaterThan(size, 0)
        for place in [size / 3, size * 2 / 3] { try Durability.flipBytes(of: dataFile, at: place, count: 16) }

        origin.resetCounters()
        let problems = Durability.ProblemLog()
        do {
            let reopened = try Durability.openCache(directory, key: keyA, problems: problems)
            do {
                try await Durability.verifyRead(reopened, url, 0..<Int64(Self.length), expected: expected)
            } catch {
                XCTFail("damaged ciphertext: \(error)")
            }
            await reopened.close()
        }
        print(
            "[encryption] 2 damaged places in the encrypted data file: origin sent \(origin.bodyBytesSent) bytes; "
                + "problems \(problems.all)"
        )
        XCTAssertGreaterThan(origin.bodyBytesSent, 0)
        XCTAssertLessThan(origin.bodyBytesSent, Int64(Self.length) / 4, "only the damaged blocks are fetched again")
        XCTAssertFalse(problems.corruptRanges.isEmpty, ".corruptData reported: \(problems.all)")
    }

    // MARK: Command line

    func testKeyFileOnTheCommandLine() async throws {
        let (origin, url) = try makeOrigin()
        let directory = try Durability.scratch(self, "enc-cli")
        let files = try Durability.scratch(self, "enc-cli-files")
        let keyFileA = files.appendingPathComponent("a.key")
        let keyFileB = files.appendingPathComponent("b.key")
        try keyA.write(to: keyFileA)
        try keyB.write(to: keyFileB)
        let output = files.appendingPathComponent("out")

        func get(_ extra: [String]) async throws -> ExternalCommand.Output {
            try? FileManager.default.removeItem(at: output)
            return try await Durability.spool(
                ["get", url.absoluteString, "--cache", directory.path, "-o", output.path] + extra)
        }
        func outputIsExact() -> String? {
            Durability.mismatch((try? Data(contentsOf: output)) ?? Data(), Self.content)
        }

        let first = try await get(["--key-file", keyFileA.path])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertNil(outputIsExact(), "spool get --key-file output")
        let (findings, scanned) = scan(directory, keys: [keyA])
        XCTAssertGreaterThanOrEqual(scanned, Int64(Self.length))
        XCTAssertEqual(findings, [], "plaintext on disk after spool get --key-file")

        // The library opens what the command wrote, with the same key, without the origin.
        do {
            let library = try Durability.openCache(directory, origin: Durability.UnreachableOrigin(), key: keyA)
            do {
                try await Durability.verifyRead(library, url, 0..<Int64(Self.length), expected: expected)
            } catch {
                XCTFail("library read (key A, origin unreachable) of what `spool get --key-file` stored: \(error)")
            }
            await library.close()
        }

        origin.resetCounters()
        let wrong = try await get(["--key-file", keyFileB.path])
        XCTAssertEqual(wrong.status, 0, "another key: refetch, not failure: \(wrong.stderr)")
        XCTAssertNil(outputIsExact(), "spool get with another key file")
        XCTAssertGreaterThan(origin.bodyBytesSent, 0)
        print("[encryption] CLI with another key: origin sent \(origin.bodyBytesSent); stderr: \(wrong.stderr)")

        origin.resetCounters()
        let none = try await get([])
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertNil(outputIsExact(), "spool get without a key on an encrypted cache")
        XCTAssertGreaterThan(origin.bodyBytesSent, 0)

        let short = files.appendingPathComponent("short.key")
        try Data(repeating: 7, count: 16).write(to: short)
        let bad = try await get(["--key-file", short.path])
        XCTAssertNotEqual(bad.status, 0, "a 16-byte key file is refused")
        XCTAssertTrue(bad.stderr.lowercased().contains("key"), "with a clear message: \(bad.stderr)")
        let missing = try await get(["--key-file", files.appendingPathComponent("nope.key").path])
        XCTAssertNotEqual(missing.status, 0, "a missing key file is refused: \(missing.stderr)")
    }
}
