import Foundation

/// The cache directory: one data file and one index record per entry.
///
/// `data/KEY` holds the bytes at their resource offsets; `index/KEY.json` says which bytes are there and of
/// which version. A record is replaced atomically (write, then rename) and only after the bytes it claims
/// were synced, so after a crash the index can only claim less than is on disk, never more.
final class DiskStore: Sendable {
    let directory: URL
    private let dataDirectory: URL
    private let indexDirectory: URL

    /// Opens or creates the cache at `directory`.
    init(directory: URL) throws {
        self.directory = directory
        dataDirectory = directory.appendingPathComponent("data", isDirectory: true)
        indexDirectory = directory.appendingPathComponent("index", isDirectory: true)
        do {
            for folder in [dataDirectory, indexDirectory] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw SpoolError.storage("cannot create cache directory \(directory.path): \(error.localizedDescription)")
        }
    }

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }()

    /// Opens the data file of `key`.
    func openFile(key: String) throws -> EntryFile {
        try EntryFile(url: dataURL(key))
    }

    /// The record of `key`, checked against its data file; `nil` if there is none or it cannot be trusted.
    func record(key: String) -> EntryRecord? {
        guard let data = try? Data(contentsOf: recordURL(key)),
              var record = try? Self.decoder.decode(EntryRecord.self, from: data),
              record.format == EntryRecord.currentFormat, record.info.length >= 0
        else { return nil }
        // Claims beyond the resource or beyond the data file's end are dropped, not believed.
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: dataURL(key).path)[.size] as? NSNumber)?
            .int64Value ?? 0
        let limit = min(record.info.length, fileSize)
        record.ranges.remove(limit..<Int64.max)
        return record
    }

    /// Replaces the record of `key` atomically.
    func save(_ record: EntryRecord, key: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        do {
            let data = try encoder.encode(record)
            try data.write(to: recordURL(key), options: .atomic)
        } catch {
            throw SpoolError.storage("cannot write index record: \(error.localizedDescription)")
        }
    }

    /// Deletes the entry's record, then its data.
    func remove(key: String) {
        try? FileManager.default.removeItem(at: recordURL(key))
        try? FileManager.default.removeItem(at: dataURL(key))
    }

    /// The keys of every entry that has a record.
    func keys() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: indexDirectory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }
    }

    private func dataURL(_ key: String) -> URL {
        dataDirectory.appendingPathComponent(key, isDirectory: false)
    }

    private func recordURL(_ key: String) -> URL {
        indexDirectory.appendingPathComponent(key + ".json", isDirectory: false)
    }
}
