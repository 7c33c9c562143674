import Foundation

/// What `spool serve` writes in its cache directory while it runs (`serve.json`): where its control API
/// answers, so that `spool download` finds the process that runs the cache's download queue. Removed when
/// serve stops; one left by a killed serve names a port nothing answers on, or another proxy, which the
/// reader tells apart by the directory the API names.
struct ServeRecord: Codable, Equatable {
    /// The proxy's base URL.
    var url: String
    /// The serving process.
    var pid: Int32

    static func file(in directory: URL) -> URL {
        directory.appendingPathComponent("serve.json")
    }

    /// Writes the record, replacing any (atomically: a reader sees a whole record or the previous one).
    func write(in directory: URL) throws {
        try JSONEncoder().encode(self).write(to: Self.file(in: directory), options: .atomic)
    }

    /// The record in `directory`, if one is there and readable.
    static func read(in directory: URL) -> ServeRecord? {
        guard let data = try? Data(contentsOf: file(in: directory)) else { return nil }
        return try? JSONDecoder().decode(ServeRecord.self, from: data)
    }

    /// Removes the record if it is still this one (a later serve may have replaced it).
    func remove(in directory: URL) {
        guard Self.read(in: directory) == self else { return }
        try? FileManager.default.removeItem(at: Self.file(in: directory))
    }
}
