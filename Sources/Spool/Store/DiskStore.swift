import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The cache directory: one data file and one index record per entry.
///
/// `data/KEY` holds the bytes at their resource offsets; `index/KEY.json` says which bytes are there and of
/// which version. A record is replaced atomically (write, then rename) and only after the bytes it claims
/// were synced, so after a crash the index can only claim less than is on disk, never more.
final class DiskStore: Sendable {
    let directory: URL
    private let dataDirectory: URL
    private let indexDirectory: URL
    /// The two folders' paths, for the `stat`s every lookup makes: building a `URL` for each took as long as the
    /// system call.
    private let dataPath: String
    private let indexPath: String

    /// Opens or creates the cache at `directory`.
    ///
    /// Creating its two folders is blocking work on the caller's thread, wherever it runs (an exception the
    /// debug checks allow by name): a cache that cannot have its folders is an error of `SpoolCache.init`,
    /// which is synchronous, as opening a database or a file handle is. It is done once per cache, and costs
    /// two `stat`s when the folders exist.
    init(directory: URL) throws {
        self.directory = directory
        let (dataDirectory, indexDirectory) = (
            directory.appendingPathComponent("data", isDirectory: true),
            directory.appendingPathComponent("index", isDirectory: true)
        )
        self.dataDirectory = dataDirectory
        self.indexDirectory = indexDirectory
        (dataPath, indexPath) = (dataDirectory.path, indexDirectory.path)
        do {
            try ConcurrencyChecks.allowingBlocking {
                BlockingIO.willBlock("creating the cache's folders")
                for folder in [dataDirectory, indexDirectory] {
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                }
                // Folders that exist already may still be another user's, or on a read-only disk.
                guard access(indexDirectory.path, W_OK) == 0 else {
                    throw SpoolError.storage(CacheDirectoryProblem.describe(indexDirectory, error: nil))
                }
            }
        } catch let error as SpoolError {
            throw error
        } catch {
            throw SpoolError.storage(CacheDirectoryProblem.describe(directory, error: error))
        }
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    /// A record as its file holds it.
    static func encoded(_ record: EntryRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(record)
    }

    /// The record `data` holds, if it decodes and is of the current format.
    static func decodedRecord(_ data: Data) -> EntryRecord? {
        guard let record = try? decoder.decode(EntryRecord.self, from: data),
            record.format == EntryRecord.currentFormat, record.info.length >= 0
        else { return nil }
        return record
    }

    /// Opens the data and slot files of `key`, holding a shared lock on the data file while open so that no
    /// process evicts the entry from under it.
    func openFile(key: String, codec: any BlockCodec) throws -> BlockFile {
        let data = try EntryFile(url: dataURL(key))
        data.lock(exclusive: false)
        let sums = try EntryFile(url: sumsURL(key))
        return BlockFile(data: data, sums: sums, codec: codec)
    }

    /// Deletes the entry of `key` unless a process (this one included) has it open; returns whether it did.
    func removeIfUnused(key: String) -> Bool {
        guard let data = try? EntryFile(url: dataURL(key)) else {
            remove(key: key)
            return true
        }
        defer { data.close() }
        guard data.lock(exclusive: true, wait: false) else { return false }
        remove(key: key)
        return true
    }

    /// The bytes a record claims, by key, without checking data files: for limits, which need every entry's
    /// size and age but must not read every data file.
    func summaries() -> [(key: String, record: EntryRecord)] {
        keys().compactMap { key in storedRecord(key: key).map { (key, $0) } }
    }

    /// The record file of `key` as written, if it decodes and is of the current format.
    private func storedRecord(key: String) -> EntryRecord? {
        BlockingIO.willBlock("reading an index record")
        // stat(2) first: every cold request asks for a record that is not there, and `Data(contentsOf:)` reports
        // a missing file by building an error, which on Linux cost as much again as the lookup itself.
        var status = stat()
        guard stat(recordPath(key), &status) == 0, let data = try? Data(contentsOf: recordURL(key))
        else { return nil }
        return Self.decodedRecord(data)
    }

    /// The record of `key`, checked against its data file; `nil` if there is none or it cannot be trusted.
    func record(key: String) -> EntryRecord? {
        checkedRecord(key: key)?.record
    }

    /// The record of `key` with its claims beyond the resource or beyond the data file's end dropped, not
    /// believed, and the claims dropped so (`nil` if there is none or it cannot be trusted).
    func checkedRecord(key: String) -> (record: EntryRecord, beyondData: ByteRangeSet)? {
        guard var record = storedRecord(key: key) else { return nil }
        BlockingIO.willBlock("stat of a data file")
        // stat(2), not FileManager's attributes, which look up owner and group names for every file.
        var status = stat()
        let fileSize = stat(dataPath + "/" + key, &status) == 0 ? Int64(status.st_size) : 0
        let limit = min(record.info.length, fileSize)
        let beyondData = record.ranges.intersection(limit..<Int64.max)
        record.ranges.remove(limit..<Int64.max)
        return (record, ByteRangeSet(beyondData))
    }

    /// What identifies the current version of `key`'s record file (inode, size, modification time), so a
    /// engine can tell whether another process replaced it without reading it; `nil` if there is none.
    func recordStamp(key: String) -> [Int64]? {
        BlockingIO.willBlock("stat of an index record")
        var status = stat()
        guard stat(recordPath(key), &status) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        return [Int64(status.st_ino), Int64(status.st_size), Int64(modified.tv_sec), Int64(modified.tv_nsec)]
    }

    /// Replaces the record of `key` atomically.
    func save(_ record: EntryRecord, key: String, durable: Bool = true) throws {
        BlockingIO.willBlock("writing an index record")
        // Synced first only when `durable`: a record that claims no newly written bytes may be lost in a crash,
        // since the record before it claims nothing untrue.
        do {
            try FileReplacement.replace(recordURL(key), with: try Self.encoded(record), durable: durable)
        } catch {
            let reason = (error as? SpoolError)?.description ?? error.localizedDescription
            throw SpoolError.storage("cannot write index record: \(reason)")
        }
    }

    /// Deletes the entry's record, then its data.
    func remove(key: String) {
        BlockingIO.willBlock("removing an entry's files")
        try? FileManager.default.removeItem(at: recordURL(key))
        try? FileManager.default.removeItem(at: dataURL(key))
        try? FileManager.default.removeItem(at: sumsURL(key))
    }

    /// The keys of every entry that has a record.
    func keys() -> [String] {
        BlockingIO.willBlock("listing the index")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: indexDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }
    }

    private func sumsURL(_ key: String) -> URL {
        dataDirectory.appendingPathComponent(key + ".sums", isDirectory: false)
    }

    private func dataURL(_ key: String) -> URL {
        dataDirectory.appendingPathComponent(key, isDirectory: false)
    }

    private func recordPath(_ key: String) -> String {
        indexPath + "/" + key + ".json"
    }

    private func recordURL(_ key: String) -> URL {
        indexDirectory.appendingPathComponent(key + ".json", isDirectory: false)
    }
}
