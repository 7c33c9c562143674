import Foundation
import Spool
import SpoolTesting
import XCTest

/// Crash safety (issue 5): a process killed with SIGKILL at any moment while it writes leaves a cache that
/// opens, claims only bytes that are really on disk, serves only correct bytes, and keeps what it saved.
final class CrashTests: XCTestCase {
    /// One resource the crash loop fills; the loop moves to the next when this one is nearly cached, so
    /// every kill lands while something is still being written.
    private struct Target {
        let path: String
        let seed: UInt64
        let length: Int64
    }

    /// What one kill left behind, checked with no origin at all: every byte the index claims must be served
    /// from disk, exactly. Returns the claims.
    private func checkClaims(
        _ cacheDirectory: URL, _ url: URL, _ target: Target, label: String
    ) async throws -> ByteRangeSet {
        let problems = Durability.ProblemLog()
        let cache: SpoolCache
        do {
            cache = try Durability.openCache(cacheDirectory, origin: Durability.UnreachableOrigin(), problems: problems)
        } catch {
            XCTFail("\(label): the cache does not open after SIGKILL: \(error)")
            throw error
        }
        let claims = await cache.entry(for: url)?.cachedRanges ?? ByteRangeSet()
        for range in claims.ranges {
            do {
                try await Durability.verifyRead(cache, url, range) {
                    TestContent.generatedBytes(seed: target.seed, range: $0)
                }
            } catch {
                XCTFail("\(label): the index claims \(range) but it cannot be served from disk alone: \(error)")
            }
        }
        XCTAssertTrue(
            problems.corruptRanges.isEmpty,
            "\(label): claimed bytes failed their checksum after a kill (the index ran ahead of the data): "
                + "\(problems.all)"
        )
        await cache.close()
        return claims
    }

    /// A full verified read, origin up, of a copy of the crashed cache (a copy, so the loop's cache keeps
    /// only what the killed processes saved). Returns the bytes the origin sent for it.
    private func fullReadOfCopy(
        _ cacheDirectory: URL, _ origin: TestOrigin, _ url: URL, _ target: Target, scratch: URL, label: String
    ) async throws -> Int64 {
        let copy = scratch.appendingPathComponent("copy", isDirectory: true)
        try Durability.copyDirectory(cacheDirectory, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        origin.resetCounters()
        let cache = try Durability.openCache(copy)
        do {
            try await Durability.verifyRead(cache, url, 0..<target.length) {
                TestContent.generatedBytes(seed: target.seed, range: $0)
            }
        } catch {
            XCTFail("\(label): full read after the kill: \(error)")
        }
        await cache.close()
        return origin.bodyBytesSent
    }

    func testSIGKILLOfSpoolGetAtRandomMomentsNeverLosesTheCacheOrServesWrongBytes() async throws {
        var random = SeededGenerator(seed: 0xC0FFEE_5EED)
        let origin = try TestOrigin()
        defer { origin.stop() }
        let cacheDirectory = try Durability.scratch(self, "crash-get")
        let scratch = try Durability.scratch(self, "crash-get-scratch")
        let targets = (0..<12).map {
            Target(path: "/crash-\($0).mp4", seed: UInt64(500 + $0), length: 32_000_000 + Int64($0) * 777)
        }
        for target in targets {
            origin.serve(
                .generated(length: target.length, seed: target.seed), at: target.path, contentType: "video/mp4")
        }

        let iterations = 32
        var current = 0
        var previous = ByteRangeSet()
        var killedWhileRunning = 0
        var keptProgress = 0
        var lostClaims = 0
        var savedTotal: Int64 = 0
        var refetchFigures: [Int64] = []
        let started = Date()
        for iteration in 0..<iterations {
            let target = targets[current]
            let url = origin.url(for: target.path)
            // Moments from "just started" (before the first byte) to well into the download.
            let delay = Double.random(in: iteration % 4 == 0 ? 0.005...0.15 : 0.15...1.1, using: &random)
            let label = "iteration \(iteration) (\(target.path), kill after \(Int(delay * 1000)) ms)"
            origin.behaviour.throttleBytesPerSecond = 8_000_000
            let process = try Durability.startSpool(
                ["get", url.absoluteString, "--cache", cacheDirectory.path], test: self)
            await Durability.pause(delay)
            if process.isRunning { killedWhileRunning += 1 }
            process.send(SIGKILL)
            let status = await Durability.waitForExit(process, timeout: 20)
            XCTAssertNotNil(status, "\(label): the killed process did not exit")
            process.stop()

            let checkStarted = Date()
            let claims = try await checkClaims(cacheDirectory, url, target, label: label)
            let checkTime = Date().timeIntervalSince(checkStarted)
            if claims.byteCount > previous.byteCount { keptProgress += 1 }
            // Bytes an earlier kill had saved (and the index claimed) must still be claimed.
            let lost = previous.ranges.reduce(Int64(0)) { total, range in
                total + (range.upperBound - range.lowerBound)
                    - claims.intersection(range).reduce(Int64(0)) { $0 + $1.upperBound - $1.lowerBound }
            }
            if lost > 0 { lostClaims += 1 }
            XCTAssertEqual(lost, 0, "\(label): \(lost) bytes claimed before this kill are no longer claimed")

            origin.behaviour.throttleBytesPerSecond = nil
            let readStarted = Date()
            let sent = try await fullReadOfCopy(cacheDirectory, origin, url, target, scratch: scratch, label: label)
            let readTime = Date().timeIntervalSince(readStarted)
            refetchFigures.append(sent)
            XCTAssertLessThanOrEqual(
                sent, target.length - claims.byteCount + 2 * 1024 * 1024,
                "\(label): the full read fetched \(sent) bytes although \(claims.byteCount) were claimed as cached")
            print(
                "[crash] \(label): claims \(claims.byteCount) bytes in \(claims.ranges.count) range(s) (checked "
                    + "offline in "
                    + "\(String(format: "%.2f", checkTime)) s); full read of a copy fetched \(sent) "
                    + "(\(String(format: "%.2f", readTime)) s)"
            )

            savedTotal += max(0, claims.byteCount - previous.byteCount)
            previous = claims
            if claims.byteCount >= target.length * 6 / 10, current + 1 < targets.count {
                current += 1
                previous = ByteRangeSet()
            }
        }
        let elapsed = Date().timeIntervalSince(started)
        print(
            """
            [crash] \(iterations) SIGKILLs of spool get in \(String(format: "%.1f", elapsed)) s: \
            \(killedWhileRunning) while running, \
            \(keptProgress) kept new bytes (\(savedTotal) bytes saved in all), \(lostClaims) lost earlier claims, \
            resources used: \(current + 1); origin bytes per full read: min \(refetchFigures.min() ?? 0) max \
            \(refetchFigures.max() ?? 0)
            """)
        XCTAssertGreaterThanOrEqual(killedWhileRunning, 30, "at least 30 kills must land while spool get runs")
        XCTAssertGreaterThan(
            keptProgress, iterations / 4, "cached bytes must survive kills (progress is kept) at least sometimes")
    }

    // MARK: The moment between a block write and the index write

    /// Bytes reach the data file (and their block's checksum slot) as they arrive, while the index record is
    /// rewritten only now and then; a kill in between leaves a record older than the last block write. What
    /// that record claims was synced before it was written, so it must still be served, from disk alone,
    /// without a corruption report: a block that grew after the record was written must not become
    /// unreadable for the part the record claims. Deterministic: the old record is put back by hand.
    func testRecordOlderThanTheLastWriteIntoItsEdgeBlocksStillServesWhatItClaims() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        let length: Int64 = 1_000_000
        let seed: UInt64 = 77
        origin.serve(.generated(length: length, seed: seed), at: "/edge.mp4", contentType: "video/mp4")
        let url = origin.url(for: "/edge.mp4")
        // (claimed by the old record, written after it): a claim ending inside block 1 that then grows
        // forwards, and a claim starting inside block 2 that then grows backwards.
        let cases: [(label: String, claimed: Range<Int64>, later: Range<Int64>)] = [
            ("grows forwards", 0..<100_000, 100_000..<120_000),
            ("grows backwards", 150_000..<200_000, 140_000..<150_000),
        ]
        for (label, claimed, later) in cases {
            let directory = try Durability.scratch(self, "crash-edge")
            let expected = { (range: Range<Int64>) in TestContent.generatedBytes(seed: seed, range: range) }
            // Each cache is closed and released before the next opens, as in a process that exits.
            var key = ""
            do {
                let first = try Durability.openCache(directory)
                try await Durability.verifyRead(first, url, claimed, expected: expected)
                await first.close()
                key = first.key(for: Resource(url: url))
            }
            let record = directory.appendingPathComponent("index").appendingPathComponent(key + ".json")
            let oldRecord = try Data(contentsOf: record)
            do {
                let second = try Durability.openCache(directory)
                try await Durability.verifyRead(second, url, later, expected: expected)
                await second.close()
            }
            do {
                // The premise: the later bytes were stored (into the edge block of the old claim).
                let grown = try await Durability.openCache(directory, origin: Durability.UnreachableOrigin()).entry(
                    for: url)?
                    .cachedRanges
                XCTAssertEqual(grown, ByteRangeSet([claimed, later]), "\(label): the later read was cached")
            }
            try oldRecord.write(to: record)  // as if killed after the block write, before the index write

            let problems = Durability.ProblemLog()
            let reopened = try Durability.openCache(
                directory, origin: Durability.UnreachableOrigin(), problems: problems)
            let foundEntry = await reopened.entry(for: url)
            XCTAssertEqual(foundEntry?.cachedRanges, ByteRangeSet([claimed]), label)
            do {
                try await Durability.verifyRead(reopened, url, claimed, expected: expected)
            } catch {
                XCTFail(
                    "\(label): bytes the record claims, synced before it was written, cannot be served from disk: "
                        + "\(error)"
                )
            }
            XCTAssertEqual(problems.all, [], "\(label): nothing was damaged, so nothing is reported")
            await reopened.close()
        }
    }

    // MARK: spool serve under load

    private func startServe(cache: URL) async throws -> BackgroundProcess {
        let serve = try Durability.startSpool(["serve", "--port", "0", "--cache", cache.path], test: self)
        let line = try await Durability.offPool { try serve.firstLine(timeout: 30) }
        XCTAssertNotNil(URL(string: line)?.port, line)
        return serve
    }

    /// The URL `spool proxy-url` makes for `origin` with the key of the serve now running on `cache`.
    private func proxyURL(_ origin: URL, cache: URL) async throws -> URL {
        let mapped = try await Durability.spool(["proxy-url", origin.absoluteString, "--cache", cache.path])
        XCTAssertEqual(mapped.status, 0, mapped.stderr)
        return try XCTUnwrap(URL(string: mapped.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    private static func curl() throws -> URL {
        guard let curl = ExternalCommand(named: "curl") else {
            throw ExternalCommand.Failure(description: "curl is not installed")
        }
        return curl.executable
    }

    func testSIGKILLOfServeUnderLoadThenRestartServesEveryByteCorrectly() async throws {
        var random = SeededGenerator(seed: 0x5E17E_C4A5)
        let origin = try TestOrigin()
        defer { origin.stop() }
        let targets = [
            Target(path: "/load-a.mp4", seed: 610, length: 24_000_017),
            Target(path: "/load-b.mp3", seed: 611, length: 12_500_003),
        ]
        for target in targets {
            origin.serve(
                .generated(length: target.length, seed: target.seed), at: target.path, contentType: "video/mp4")
        }
        let cacheDirectory = try Durability.scratch(self, "crash-serve")
        let outputs = try Durability.scratch(self, "crash-serve-out")
        let curl = try Self.curl()
        var partialResponses = 0
        var completeResponses = 0
        var deliveredBeforeKill: Int64 = 0
        let rounds = 6
        let started = Date()

        for round in 0..<rounds {
            origin.behaviour.throttleBytesPerSecond = 2_000_000
            let serve = try await startServe(cache: cacheDirectory)
            var clients: [(BackgroundProcess, Target, Range<Int64>, URL)] = []
            for client in 0..<6 {
                let target = targets[Int.random(in: 0..<targets.count, using: &random)]
                let start = client == 0 ? 0 : Int64.random(in: 0..<(target.length - 1), using: &random)
                let end =
                    client == 0
                    ? target.length : min(target.length, start + Int64.random(in: 100_000...8_000_000, using: &random))
                let file = outputs.appendingPathComponent("r\(round)-c\(client)")
                let proxied = try await proxyURL(origin.url(for: target.path), cache: cacheDirectory)
                let process = try BackgroundProcess(
                    executable: curl,
                    arguments: [
                        "--silent", "--show-error", "--noproxy", "*", "-r", "\(start)-\(end - 1)", "-o", file.path,
                        proxied.absoluteString,
                    ])
                addTeardownBlock { process.stop() }
                clients.append((process, target, start..<end, file))
            }
            let delay = Double.random(in: 0.2...1.5, using: &random)
            await Durability.pause(delay)
            XCTAssertTrue(serve.isRunning, "round \(round): serve died before the kill: \(serve.stderr)")
            serve.send(SIGKILL)
            _ = await Durability.waitForExit(serve, timeout: 20)
            serve.stop()

            for (process, target, range, file) in clients {
                let status = await Durability.waitForExit(process, timeout: 30)
                process.stop()
                let received = (try? Data(contentsOf: file)) ?? Data()
                deliveredBeforeKill += Int64(received.count)
                if received.count == range.count { completeResponses += 1 } else { partialResponses += 1 }
                // Whatever reached a client before the kill is a prefix of the right bytes.
                let expected = TestContent.generatedBytes(
                    seed: target.seed,
                    range: range.lowerBound..<(range.lowerBound + Int64(min(received.count, range.count))))
                XCTAssertNil(
                    Durability.mismatch(received.prefix(range.count), expected, at: range.lowerBound),
                    "round \(round): client of \(target.path) \(range) (curl status \(status.map(String.init) ?? "?"))")
                XCTAssertLessThanOrEqual(received.count, range.count)
                try? FileManager.default.removeItem(at: file)
            }
            for target in targets {
                _ = try await checkClaims(
                    cacheDirectory, origin.url(for: target.path), target, label: "serve round \(round)")
            }
            print("[crash-serve] round \(round): serve killed after \(Int(delay * 1000)) ms")
        }

        // Restart on the same cache and read everything through it, with the origin unthrottled.
        origin.behaviour.throttleBytesPerSecond = nil
        var claimed: Int64 = 0
        do {
            let cache = try Durability.openCache(cacheDirectory, origin: Durability.UnreachableOrigin())
            for target in targets { await claimed += cache.entry(for: origin.url(for: target.path))?.cachedBytes ?? 0 }
            await cache.close()
        }
        origin.resetCounters()
        let serve = try await startServe(cache: cacheDirectory)
        for target in targets {
            let file = outputs.appendingPathComponent("final\(target.seed)")
            let proxied = try await proxyURL(origin.url(for: target.path), cache: cacheDirectory)
            let command = ExternalCommand(executable: curl)
            let result = try await Durability.offPool {
                try command.run(["--silent", "--show-error", "--noproxy", "*", "-o", file.path, proxied.absoluteString])
            }
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertNil(
                Durability.mismatch(file: file, length: target.length) {
                    TestContent.generatedBytes(seed: target.seed, range: $0)
                },
                "after restart: all of \(target.path) through the proxy")
            // A few ranges as well.
            for _ in 0..<3 {
                let start = Int64.random(in: 0..<(target.length - 1), using: &random)
                let end = min(target.length, start + 1_000_000)
                let ranged = try await Durability.offPool {
                    try command.run([
                        "--silent", "--show-error", "--noproxy", "*", "-r", "\(start)-\(end - 1)",
                        proxied.absoluteString,
                    ])
                }
                XCTAssertNil(
                    Durability.mismatch(
                        ranged.stdout, TestContent.generatedBytes(seed: target.seed, range: start..<end), at: start),
                    "after restart: range \(start)-\(end - 1) of \(target.path)")
            }
        }
        let total = targets.reduce(Int64(0)) { $0 + $1.length }
        print(
            """
            [crash-serve] \(rounds) SIGKILLs of serve under 6 curl clients each in \
            \(String(format: "%.1f", Date().timeIntervalSince(started))) s: \
            \(completeResponses) responses complete, \(partialResponses) cut off, \(deliveredBeforeKill) bytes \
            delivered before kills; \
            after restart \(claimed) of \(total) bytes were claimed, the origin sent \(origin.bodyBytesSent) for the \
            final reads
            """)
        XCTAssertGreaterThan(claimed, 0, "bytes fetched before the kills stay cached")
        XCTAssertLessThanOrEqual(
            origin.bodyBytesSent, total - claimed + 4 * 1024 * 1024,
            "the restarted proxy serves claimed bytes from the cache")
        serve.stop()
    }
}
