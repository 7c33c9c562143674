import Foundation
import Spool
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Helpers of the durability tests (Lifecycle/: two processes, crashes, corruption, full disk, encryption):
/// real processes, real files, and byte-by-byte verification without holding large files in memory.
enum Durability {
    /// A fresh temporary directory, removed when `test` ends.
    static func scratch(_ test: XCTestCase, _ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Runs blocking work (a child process, polling, sleeps) on a Dispatch thread, so Swift's cooperative
    /// pool (two threads on a two-core machine) stays free for the in-process cache and origin.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Sleeps on a Dispatch thread.
    static func pause(_ seconds: TimeInterval) async {
        _ = try? await offPool { Thread.sleep(forTimeInterval: seconds) }
    }

    /// Runs `spool arguments…` to completion (off the cooperative pool).
    static func spool(_ arguments: [String], timeout: TimeInterval = 120) async throws -> ExternalCommand.Output {
        let command = ExternalCommand(executable: try SpoolExecutable.url())
        return try await offPool { try command.run(arguments, timeout: timeout) }
    }

    /// Runs `bash -c script` to completion; `$SPOOL` is the built spool executable.
    static func bash(_ script: String, timeout: TimeInterval = 120) async throws -> ExternalCommand.Output {
        var environment = ProcessInfo.processInfo.environment
        environment["SPOOL"] = try SpoolExecutable.url().path
        let command = ExternalCommand(executable: URL(fileURLWithPath: "/bin/bash"), environment: environment)
        return try await offPool { try command.run(["-c", script], timeout: timeout) }
    }

    /// Starts `spool arguments…` in the background; stopped (SIGKILL) at the latest when `test` ends.
    static func startSpool(_ arguments: [String], test: XCTestCase) throws -> BackgroundProcess {
        let process = try BackgroundProcess(executable: try SpoolExecutable.url(), arguments: arguments)
        test.addTeardownBlock { process.stop() }
        return process
    }

    /// Waits (off the pool) for `process` to exit; its status, or `nil` if it still runs after `timeout`.
    static func waitForExit(_ process: BackgroundProcess, timeout: TimeInterval = 120) async -> Int32? {
        (try? await offPool { process.waitForExit(timeout: timeout) }) ?? nil
    }

    /// The path of `s`, quoted for bash.
    static func quoted(_ s: String) -> String {
        "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: Verification

    /// Where `actual` first differs from `expected`, described; `nil` when they are equal.
    static func mismatch(_ actual: Data, _ expected: Data, at base: Int64 = 0) -> String? {
        if actual == expected { return nil }
        let common = min(actual.count, expected.count)
        let firstDifference: Int? = actual.withUnsafeBytes { (a: UnsafeRawBufferPointer) -> Int? in
            expected.withUnsafeBytes { (e: UnsafeRawBufferPointer) -> Int? in
                var index = 0
                while index < common {
                    if a[index] != e[index] { return index }
                    index += 1
                }
                return nil
            }
        }
        if let index = firstDifference {
            return "first wrong byte at offset \(base + Int64(index)) (got \(actual[actual.startIndex + index]), "
                + "expected \(expected[expected.startIndex + index])); \(actual.count) bytes vs \(expected.count) "
                + "expected"
        }
        return "\(actual.count) bytes where \(expected.count) were expected (equal over the first \(common))"
    }

    /// Compares a file with `expected(range)` piecewise (4 MiB at a time); a description of the first
    /// difference, or `nil` when the file is exactly the content.
    static func mismatch(file: URL, length: Int64, expected: (Range<Int64>) -> Data) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "cannot open \(file.path)" }
        defer { try? handle.close() }
        var offset: Int64 = 0
        while true {
            let chunk = (try? handle.read(upToCount: 4 * 1024 * 1024)) ?? Data()
            if chunk.isEmpty { break }
            let end = min(length, offset + Int64(chunk.count))
            if let problem = mismatch(chunk, expected(offset..<end), at: offset) { return problem }
            offset += Int64(chunk.count)
        }
        return offset == length ? nil : "the file holds \(offset) bytes, the content \(length)"
    }

    /// Reads `range` of `url` through `cache`, comparing every chunk with `expected` as it arrives; throws
    /// the reader's error (annotated) or a mismatch.
    static func verifyRead(
        _ cache: SpoolCache, _ url: URL, _ range: Range<Int64>, expected: (Range<Int64>) -> Data
    ) async throws {
        var position = range.lowerBound
        do {
            for try await chunk in cache.read(url, from: range.lowerBound, length: range.upperBound - range.lowerBound)
            {
                let end = position + Int64(chunk.count)
                guard end <= range.upperBound else {
                    throw VerificationFailure("read of \(range) delivered bytes up to \(end)")
                }
                if let problem = mismatch(chunk, expected(position..<end), at: position) {
                    throw VerificationFailure("read of \(range): \(problem)")
                }
                position = end
            }
        } catch let failure as VerificationFailure {
            throw failure
        } catch {
            throw VerificationFailure("read of \(range) failed at offset \(position) with \(error)")
        }
        guard position == range.upperBound else {
            throw VerificationFailure("read of \(range) ended at \(position)")
        }
    }

    /// A verification that found wrong, missing or extra bytes.
    struct VerificationFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Files

    /// Every regular file under `directory` (recursively).
    static func files(under directory: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? [])
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    /// The size of the file at `url` (0 if missing).
    static func size(_ url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// Copies `source` to a new directory `destination` (sparse data files copied with their holes).
    static func copyDirectory(_ source: URL, to destination: URL) throws {
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.copyItem(at: source, to: destination)
    }

    /// Whether `needle` occurs in `haystack` (memmem: fast enough to scan many files for many needles).
    static func contains(_ haystack: Data, _ needle: Data) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBytes { (h: UnsafeRawBufferPointer) -> Bool in
            needle.withUnsafeBytes { (n: UnsafeRawBufferPointer) -> Bool in
                // memchr for the first byte, memcmp for the rest (Glibc's memmem is not imported).
                let first = Int32(n[0])
                var start = 0
                let last = h.count - n.count
                while start <= last {
                    guard let found = memchr(h.baseAddress! + start, first, last - start + 1) else { return false }
                    let offset = h.baseAddress!.distance(to: UnsafeRawPointer(found))
                    if memcmp(h.baseAddress! + offset, n.baseAddress!, n.count) == 0 { return true }
                    start = offset + 1
                }
                return false
            }
        }
    }

    /// Overwrites `count` bytes at `offset` of `file` with their complement, so the bytes really change.
    static func flipBytes(of file: URL, at offset: Int64, count: Int) throws {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let original = try handle.read(upToCount: count) ?? Data()
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(original.map { ~$0 }))
    }

    // MARK: Cache access

    /// A cache on `directory` with an HTTP origin (short timeout), reporting problems into `problems`.
    static func openCache(
        _ directory: URL, origin: any Origin = HTTPOrigin(timeout: 10), key: Data? = nil, problems: ProblemLog? = nil
    ) throws -> SpoolCache {
        var onProblem: (@Sendable (SpoolProblem) -> Void)?
        if let problems { onProblem = { problems.record($0) } }
        return try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: origin, encryptionKey: key, onProblem: onProblem))
    }
}

extension Durability {
    /// The problems a cache reported through `onProblem`, in order.
    final class ProblemLog: @unchecked Sendable {
        // @unchecked: every access goes through `lock`.
        private let lock = NSLock()
        private var recorded: [SpoolProblem] = []

        func record(_ problem: SpoolProblem) {
            lock.lock()
            recorded.append(problem)
            lock.unlock()
        }

        var all: [SpoolProblem] {
            lock.lock()
            defer { lock.unlock() }
            return recorded
        }

        var corruptRanges: [Range<Int64>] {
            all.compactMap { if case .corruptData(_, let range) = $0 { range } else { nil } }
        }

        var wrongKeyCount: Int {
            all.filter { if case .wrongKey = $0 { true } else { false } }.count
        }

        var storageFailureCount: Int {
            all.filter { if case .storageFailed = $0 { true } else { false } }.count
        }
    }

    /// An origin that is never reachable: a read through it succeeds only from cached bytes.
    struct UnreachableOrigin: Origin {
        func contentInfo(for url: URL) async throws -> ContentInfo {
            throw SpoolError.network("test: origin unreachable")
        }

        func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
            throw SpoolError.network("test: origin unreachable")
        }
    }
}
