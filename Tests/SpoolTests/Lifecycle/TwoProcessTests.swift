import Foundation
import Spool
import SpoolTesting
import XCTest

/// Two `spool get` processes at once on one cache directory (issue 5, "two processes"): both succeed with
/// exact bytes, and what they leave behind serves every byte with the origin gone.
final class TwoProcessTests: XCTestCase {
    /// Per-response pace of the origin: a 40 MB download takes a few seconds, so the processes overlap.
    private static let throttle = 16_000_000

    private struct Download {
        let path: String
        let seed: UInt64
        let length: Int64
        var range: Range<Int64>? = nil
    }

    /// Starts `spool get` for `download` into `cache`, writing to `output`.
    private func startGet(_ origin: TestOrigin, _ download: Download, cache: URL, output: URL) throws
        -> BackgroundProcess
    {
        var arguments = [
            "get", origin.url(for: download.path).absoluteString, "--cache", cache.path, "-o", output.path,
        ]
        if let range = download.range { arguments += ["--range", "\(range.lowerBound)-\(range.upperBound - 1)"] }
        return try Durability.startSpool(arguments, test: self)
    }

    /// Runs two gets with `delay` seconds between their starts; both must exit 0 with exact bytes.
    private func runPair(
        _ origin: TestOrigin, _ first: Download, _ second: Download, delay: TimeInterval, cache: URL, label: String
    ) async throws {
        let scratch = try Durability.scratch(self, "two-out")
        let outputs = [scratch.appendingPathComponent("a"), scratch.appendingPathComponent("b")]
        let started = Date()
        let a = try startGet(origin, first, cache: cache, output: outputs[0])
        if delay > 0 { await Durability.pause(delay) }
        let b = try startGet(origin, second, cache: cache, output: outputs[1])
        // One deadline for both.
        let statusA = await Durability.waitForExit(a, timeout: 150)
        let statusB = await Durability.waitForExit(b, timeout: max(1, 150 - Date().timeIntervalSince(started)))
        let elapsed = Date().timeIntervalSince(started)
        // Still running after the timeout: killed, so that the offline checks below run on what they left.
        a.stop()
        b.stop()
        let warnings = (a.stderr + b.stderr).components(separatedBy: "\n").filter { $0.contains("warning") }
        XCTAssertEqual(
            statusA, 0,
            "\(label): first get (nil: still running after 150 s); \(warnings.count) warnings; stderr: "
                + "\(a.stderr.prefix(1500))"
        )
        XCTAssertEqual(statusB, 0, "\(label): second get; stderr: \(b.stderr.prefix(1500))")
        XCTAssertEqual(warnings, [], "\(label): two processes sharing a cache report no problem")
        for (download, output) in zip([first, second], outputs) {
            let range = download.range ?? 0..<download.length
            let problem = Durability.mismatch(file: output, length: Int64(range.count)) {
                TestContent.generatedBytes(
                    seed: download.seed, range: ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound))
            }
            XCTAssertNil(problem, "\(label): output of \(download.path) \(range)")
        }
        print(
            "[two-process] \(label): exit \(statusA.map(String.init) ?? "none") and "
                + "\(statusB.map(String.init) ?? "none") "
                + "after \(String(format: "%.2f", elapsed)) s, origin sent \(origin.bodyBytesSent) bytes, "
                + "\(warnings.count) warnings"
        )
    }

    /// With the origin stopped: `spool get` of each resource from the cache, then a library read of every
    /// byte, both exact; and the index claims every byte.
    private func verifyOffline(_ resources: [(url: URL, seed: UInt64, length: Int64)], cache: URL, label: String)
        async throws
    {
        let scratch = try Durability.scratch(self, "two-offline")
        for (index, resource) in resources.enumerated() {
            let output = scratch.appendingPathComponent("offline-\(index)")
            let result = try await Durability.spool(
                ["get", resource.url.absoluteString, "--cache", cache.path, "-o", output.path], timeout: 60)
            XCTAssertEqual(result.status, 0, "\(label): offline get of \(resource.url.path): \(result.stderr)")
            XCTAssertNil(
                Durability.mismatch(file: output, length: resource.length) {
                    TestContent.generatedBytes(seed: resource.seed, range: $0)
                },
                "\(label): offline get of \(resource.url.path)")
        }
        let problems = Durability.ProblemLog()
        let library = try Durability.openCache(cache, origin: Durability.UnreachableOrigin(), problems: problems)
        for resource in resources {
            let foundEntry1 = await library.entry(for: resource.url)
            XCTAssertEqual(
                foundEntry1?.cachedRanges, ByteRangeSet([0..<resource.length]),
                "\(label): the index claims all of \(resource.url.path)")
            do {
                try await Durability.verifyRead(library, resource.url, 0..<resource.length) {
                    TestContent.generatedBytes(seed: resource.seed, range: $0)
                }
            } catch {
                XCTFail("\(label): library read of \(resource.url.path) with the origin unreachable: \(error)")
            }
        }
        XCTAssertEqual(problems.all, [], "\(label): no problem while reading a cache two processes filled")
        await library.close()
    }

    /// The interleaving behind an intermittent failure of the same-resource test (about 1 run in 4: the
    /// cache ends up claiming nothing), made deterministic: a process that read part of an entry while
    /// another process was filling it (so it knows only what the filler had claimed then) goes on after the
    /// filler has exited and becomes the entry's writer. It must not take its stale view for the truth:
    /// bytes the filler stored since (in the same 64 KiB block, too) are not damage, and the filler's
    /// claims must survive. Two `SpoolCache` instances on one directory stand for the two processes (the
    /// entry locks are `flock`s on separately opened files, which conflict within a process too).
    func testAReaderThatOutlivesTheFillingProcessKeepsTheFillersClaims() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let length: Int64 = 3_000_000
        let seed: UInt64 = 450
        origin.serve(.generated(length: length, seed: seed), at: "/outlive.mp4", contentType: "video/mp4")
        let url = origin.url(for: "/outlive.mp4")
        let directory = try Durability.scratch(self, "two-outlive")
        let expected = { (range: Range<Int64>) in TestContent.generatedBytes(seed: seed, range: range) }

        let readerProblems = Durability.ProblemLog()
        let reader = try Durability.openCache(directory, problems: readerProblems)
        var readerIterator: ByteStream.Iterator
        var read = Data()
        do {
            let filler = try Durability.openCache(directory)
            // The filler stores (and claims) the start, up to the middle of block 0…
            try await Durability.verifyRead(filler, url, 0..<40_000, expected: expected)
            // …the reader's first chunk comes from those bytes…
            readerIterator = reader.read(url).makeAsyncIterator()
            read.append(try await readerIterator.next() ?? Data())
            // …then the filler stores everything else, block 0's rest included.
            try await Durability.verifyRead(filler, url, 0..<length, expected: expected)
            await filler.close()
        }  // the filler's stream and cache are released here: the "process" has exited
        await assertClaimsEverything(directory, url, length, "the filler's record claims everything")

        while let chunk = try await readerIterator.next() { read.append(chunk) }
        XCTAssertNil(Durability.mismatch(read, expected(0..<length)), "the reader's bytes")
        await reader.close()

        XCTAssertEqual(readerProblems.all, [], "nothing was damaged, so the late reader reports nothing")
        await assertFillersClaimsSurvive(directory, url, length, expected, "the late reader finished")
    }

    /// The other interleaving: the second process starts reading where the filler has stored nothing yet,
    /// so it fetches those bytes itself; it finishes after the filler has exited. The filler's complete record must
    /// survive. (Reproduced with the CLI too: two
    /// `spool get` of one 40 MB file from nginx with `limit_rate 16m`, the second started 0.1-0.3 s later:
    /// both exit 0, the data file holds all 40 MB, the record claims only the first 1.4-10 MB.)
    func testAProcessReadingFromTheOriginWhileAnotherFillsDoesNotShrinkTheFillersClaims() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let length: Int64 = 3_000_000
        let seed: UInt64 = 451
        origin.serve(.generated(length: length, seed: seed), at: "/fallback.mp4", contentType: "video/mp4")
        let url = origin.url(for: "/fallback.mp4")
        let directory = try Durability.scratch(self, "two-fallback")
        let expected = { (range: Range<Int64>) in TestContent.generatedBytes(seed: seed, range: range) }

        let readerProblems = Durability.ProblemLog()
        let reader = try Durability.openCache(directory, problems: readerProblems)
        var readerIterator: ByteStream.Iterator
        var read = Data()
        let readerStart: Int64 = 2_000_000
        do {
            let filler = try Durability.openCache(directory)
            var fillerIterator = filler.read(url).makeAsyncIterator()
            var filled = Int64(try await fillerIterator.next()?.count ?? 0)
            // Bytes the filler has not stored yet: the reader fetches them itself.
            readerIterator = reader.read(url, from: readerStart).makeAsyncIterator()
            read.append(try await readerIterator.next() ?? Data())
            while let chunk = try await fillerIterator.next() { filled += Int64(chunk.count) }
            XCTAssertEqual(filled, length)
            await filler.close()
        }  // the filler's stream and cache are released here: the "process" has exited
        await assertClaimsEverything(directory, url, length, "the filler's record claims everything")
        while let chunk = try await readerIterator.next() { read.append(chunk) }
        XCTAssertNil(Durability.mismatch(read, expected(readerStart..<length), at: readerStart), "the reader's bytes")
        await reader.close()

        XCTAssertEqual(
            readerProblems.all.filter { if case .corruptData = $0 { true } else { false } }, [], "nothing was damaged")
        await assertFillersClaimsSurvive(directory, url, length, expected, "the other process finished")
    }

    /// Asserts that a cache opened on `directory` with no origin claims every byte of `url`.
    private func assertClaimsEverything(
        _ directory: URL, _ url: URL, _ length: Int64, _ message: String, line: UInt = #line
    ) async {
        do {
            let check = try Durability.openCache(directory, origin: Durability.UnreachableOrigin())
            let foundEntry2 = await check.entry(for: url)
            XCTAssertEqual(foundEntry2?.cachedRanges, ByteRangeSet([0..<length]), message, line: line)
        } catch {
            XCTFail("\(message): \(error)", line: line)
        }
    }

    /// After the second process of a two-process scenario finished: the filler's claims are intact and an
    /// offline read returns every byte.
    private func assertFillersClaimsSurvive(
        _ directory: URL, _ url: URL, _ length: Int64, _ expected: (Range<Int64>) -> Data, _ moment: String,
        line: UInt = #line
    ) async {
        await assertClaimsEverything(
            directory, url, length,
            "the filler's claims after \(moment) (it may not drop or overwrite them)", line: line)
        do {
            let after = try Durability.openCache(directory, origin: Durability.UnreachableOrigin())
            try await Durability.verifyRead(after, url, 0..<length, expected: expected)
            await after.close()
        } catch {
            XCTFail("offline read after both finished: \(error)", line: line)
        }
    }

    /// (a) The same 40 MB resource, three rounds: simultaneous starts, a short stagger, and a late second
    /// process on a cache that already held a piece in the middle.
    func testTwoProcessesFetchingTheSameLargeResource() async throws {
        let length: Int64 = 40_000_000
        for (round, delay) in [0.0, 0.25, 1.2].enumerated() {
            let origin = try TestOrigin()
            defer { origin.stop() }
            let seed = UInt64(100 + round)
            origin.serve(.generated(length: length, seed: seed), at: "/big.mp4", contentType: "video/mp4")
            origin.behaviour.throttleBytesPerSecond = Self.throttle
            let cache = try Durability.scratch(self, "two-same")
            let label = "round \(round) (second start +\(delay) s)"
            if round == 2 {
                let warm = try await Durability.spool(
                    [
                        "get", origin.url(for: "/big.mp4").absoluteString, "--cache", cache.path, "--range",
                        "10000000-14999999",
                    ])
                XCTAssertEqual(warm.status, 0, warm.stderr)
                origin.resetCounters()
            }
            let download = Download(path: "/big.mp4", seed: seed, length: length)
            try await runPair(origin, download, download, delay: delay, cache: cache, label: label)
            origin.stop()
            try await verifyOffline([(origin.url(for: "/big.mp4"), seed, length)], cache: cache, label: label)
        }
    }

    /// (b) Different resources at once into one directory, two rounds with different timing.
    func testTwoProcessesFetchingDifferentResources() async throws {
        for (round, delay) in [0.0, 0.4].enumerated() {
            let origin = try TestOrigin()
            defer { origin.stop() }
            let a = Download(path: "/a.mp4", seed: UInt64(200 + round), length: 24_000_123)
            let b = Download(path: "/b.mp3", seed: UInt64(300 + round), length: 17_654_321)
            origin.serve(.generated(length: a.length, seed: a.seed), at: a.path, contentType: "video/mp4")
            origin.serve(.generated(length: b.length, seed: b.seed), at: b.path, contentType: "audio/mpeg")
            origin.behaviour.throttleBytesPerSecond = Self.throttle
            let cache = try Durability.scratch(self, "two-diff")
            let label = "round \(round) (second start +\(delay) s)"
            try await runPair(origin, a, b, delay: delay, cache: cache, label: label)
            origin.stop()
            try await verifyOffline(
                [(origin.url(for: a.path), a.seed, a.length), (origin.url(for: b.path), b.seed, b.length)],
                cache: cache, label: label)
        }
    }

    /// Two processes filling different halves (then overlapping ranges) of one resource: the index must
    /// end up claiming both processes' bytes (records merged, not last-writer-wins), so the whole resource
    /// plays with the origin gone.
    func testTwoProcessesFillingDifferentRangesOfOneResourceMergeTheirIndexRecords() async throws {
        let length: Int64 = 30_000_000
        let splits: [(Range<Int64>, Range<Int64>)] = [
            (0..<15_000_000, 15_000_000..<length),
            (0..<20_000_000, 9_000_000..<length),
        ]
        for (round, (first, second)) in splits.enumerated() {
            let origin = try TestOrigin()
            defer { origin.stop() }
            let seed = UInt64(400 + round)
            origin.serve(.generated(length: length, seed: seed), at: "/halves.mp4", contentType: "video/mp4")
            origin.behaviour.throttleBytesPerSecond = Self.throttle
            let cache = try Durability.scratch(self, "two-ranges")
            let label = "ranges round \(round): \(first) and \(second)"
            try await runPair(
                origin, Download(path: "/halves.mp4", seed: seed, length: length, range: first),
                Download(path: "/halves.mp4", seed: seed, length: length, range: second),
                delay: 0.1, cache: cache, label: label)
            origin.stop()
            try await verifyOffline([(origin.url(for: "/halves.mp4"), seed, length)], cache: cache, label: label)
        }
    }
}
