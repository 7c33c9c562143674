import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolTesting

/// The work of `spool bench startup`: fill a cache with small entries through the library, then time a
/// fresh `SpoolCache` opening it, reading one entry and listing every entry.
struct StartupBenchmark {
    /// What filling did.
    struct Fill {
        /// Entries fetched now.
        var created: Int
        /// How long filling took, in seconds.
        var seconds: Double
        /// The address the (now stopped) origin had.
        var originBase: URL
    }

    let directory: URL
    let entries: Int
    let entrySize: Int64

    /// Entry `index`: a resource of the local origin under a cache key that does not depend on its port, so
    /// a kept cache directory is reused by the next run.
    private func resource(_ index: Int, base: URL) -> Resource {
        Resource(url: base.appendingPathComponent("bench/\(index).bin"), cacheKey: "spool-bench-startup/\(index)")
    }

    /// Creates the entries the directory lacks by reading each whole from a local origin, 8 at a time.
    func fill() async throws -> Fill {
        let origin = try TestOrigin()
        defer { origin.stop() }
        for index in 0..<entries {
            origin.serve(.generated(length: entrySize, seed: UInt64(index)), at: "/bench/\(index).bin")
        }
        let transport = AsyncHTTPClientTransport(maximumConnectionsPerHost: 8)
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(transport: transport, timeout: 10),
                onProblem: ProblemPrinter.standardError))
        let filled: Fill
        do {
            filled = try await fillMissing(in: cache, base: origin.baseURL)
        } catch {
            await cache.close()
            await transport.shutdown()
            throw error
        }
        await cache.close()
        await transport.shutdown()
        // A read succeeds even when the disk does not take its bytes (they come from the origin): check.
        var uncached: [Int] = []
        for index in 0..<entries
        where await cache.entry(for: resource(index, base: origin.baseURL))?.cachedBytes != entrySize {
            uncached.append(index)
        }
        guard uncached.isEmpty else {
            throw CommandFailure(
                message:
                    "\(uncached.count) of \(entries) entries were read but not cached (first: entry \(uncached[0]))")
        }
        return filled
    }

    private func fillMissing(in cache: SpoolCache, base: URL) async throws -> Fill {
        var missing: [Int] = []
        for index in 0..<entries where await cache.entry(for: resource(index, base: base))?.cachedBytes != entrySize {
            missing.append(index)
        }
        let start = Date()
        var tenthsShown = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = missing.makeIterator()
            var done: Int64 = 0
            for _ in 0..<8 {
                guard let index = next.next() else { break }
                group.addTask { try await cache.prefetch(resource(index, base: base)) }
            }
            while try await group.next() != nil {
                done += 1
                if done * 10 / Int64(missing.count) > tenthsShown {
                    tenthsShown = Int(done * 10 / Int64(missing.count))
                    FileHandle.standardError.write(
                        Data("filling: \(tenthsShown * 10)% (\(done) of \(missing.count) entries)\n".utf8))
                }
                guard let index = next.next() else { continue }
                group.addTask { try await cache.prefetch(resource(index, base: base)) }
            }
        }
        return Fill(created: missing.count, seconds: Date().timeIntervalSince(start), originBase: base)
    }

    /// Times each step `runs` times, every run on a new `SpoolCache`; `base` is the stopped origin of `fill()`.
    func measure(runs: Int, base: URL) async throws -> BenchTable {
        let transport = AsyncHTTPClientTransport()
        do {
            let table = try await measure(runs: runs, base: base, origin: HTTPOrigin(transport: transport, timeout: 2))
            await transport.shutdown()
            return table
        } catch {
            await transport.shutdown()
            throw error
        }
    }

    private func measure(runs: Int, base: URL, origin: HTTPOrigin) async throws -> BenchTable {
        var table = BenchTable(runs: runs)
        let probeLength = min(entrySize, 64 * 1024)
        for run in 0..<runs {
            let probe = (run * 7919) % entries
            // The origin is stopped: a byte that is not on disk fails the read instead of being fetched.
            let configuration = SpoolConfiguration(directory: directory, origin: origin)
            let cache = try table.time("open SpoolCache") { try SpoolCache(configuration: configuration) }
            var first = Data()
            try await table.timeAsync("first read: \(probeLength) bytes of one entry") {
                for try await chunk in cache.read(resource(probe, base: base), length: probeLength) {
                    first.append(chunk)
                }
            }
            guard first == TestContent.generatedBytes(seed: UInt64(probe), range: 0..<probeLength) else {
                throw CommandFailure(message: "entry \(probe) read back wrong bytes")
            }
            var listed: [CacheEntry] = []
            var total: Int64 = 0
            await table.timeAsync("entries()") { listed = await cache.entries() }
            await table.timeAsync("totalBytes") { total = await cache.totalBytes }
            guard listed.count >= entries, total >= Int64(entries) * entrySize else {
                throw CommandFailure(
                    message:
                        "the cache lists \(listed.count) entries and \(total) bytes; expected at least \(entries) and "
                        + "\(Int64(entries) * entrySize)"
                )
            }
            table.note("entries()", "\(listed.count) entries")
            table.note("totalBytes", "\(total) bytes")
            await cache.close()
            // With limits the cache reads every index record when it opens, to apply them; these evict nothing.
            var limited = configuration
            limited.limits = CacheLimits(maxBytes: Int64.max / 2, maxAge: 100 * 365 * 86400)
            let withLimits = try table.time("open SpoolCache with limits") { try SpoolCache(configuration: limited) }
            await withLimits.close()
        }
        return table
    }
}
