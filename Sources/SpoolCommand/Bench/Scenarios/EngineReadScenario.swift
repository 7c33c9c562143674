import Foundation
import Spool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Scenario 4: a cached file read through the library API (`SpoolCache.read`, in this process) against a
/// plain `pread` loop over the cache's own data file, with the engine's chunk size: what the engine's
/// bookkeeping and checksums cost over the bare system call.
struct EngineReadScenario {
    let rig: BenchRig

    func run(progress: (String) -> Void) async throws -> BenchRow {
        let size = rig.size(.throughput)
        var row = BenchRow(
            id: "4", title: "engine: SpoolCache.read of a cached \(ByteCountText.format(size)) file",
            unit: .bytesPerSecond,
            higherIsBetter: true, referenceName: "pread loop, same file", goal: .ratio(atLeast: 0.5))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-bench-engine-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        let url = rig.originURL(.throughput, query: "engine")
        progress("engine read: caching \(ByteCountText.format(size)) through the library")
        guard try await cache.prefetch(Resource(url: url)) == size,
            await cache.cachedRanges(for: Resource(url: url)).byteCount == size
        else {
            throw CommandFailure(message: "engine read: the file was not cached whole")
        }
        let dataFile = directory.appendingPathComponent("data").appendingPathComponent(
            cache.key(for: Resource(url: url)))
        let chunk = cache.configuration.fetchPolicy.readChunkSize
        for run in 0..<rig.plan.runs {
            progress("engine read, run \(run + 1) of \(rig.plan.runs)")
            let (engineBytes, engineSeconds) = try await Self.timed {
                var count: Int64 = 0
                for try await data in cache.read(url) { count += Int64(data.count) }
                return count
            }
            let (preadBytes, preadSeconds) = try await Self.timed {
                try Self.preadLoop(dataFile, chunk: chunk, length: size)
            }
            guard engineBytes == size, preadBytes == size else {
                throw CommandFailure(message: "engine read: read \(engineBytes) and \(preadBytes) bytes of \(size)")
            }
            row.spool.append(Double(size) / engineSeconds)
            row.reference.append(Double(size) / preadSeconds)
        }
        await cache.close()
        row.notes.append("pread loop: one reused \(chunk / 1024) KiB buffer (the engine's read chunk), no checksums")
        return row
    }

    private static func timed(_ body: () async throws -> Int64) async throws -> (Int64, Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        let count = try await body()
        return (count, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// Reads `length` bytes of `file` with `pread` into one reused buffer.
    private static func preadLoop(_ file: URL, chunk: Int, length: Int64) throws -> Int64 {
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else { throw CommandFailure(message: "engine read: cannot open \(file.path)") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: chunk)
        var offset: Int64 = 0
        while offset < length {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { break }
            offset += Int64(count)
        }
        return offset
    }
}
