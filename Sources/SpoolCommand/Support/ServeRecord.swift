import Foundation
import SpoolProxy

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `spool serve` writes in its cache directory while it runs (`serve.json`, readable by its user only):
/// where it answers and the secrets the other `spool` commands need to use it: the control API's token
/// (`spool download` goes to the process that runs the cache's download queue) and the URL key (`spool
/// proxy-url` makes URLs this proxy serves). Removed when serve stops; one left by a killed serve names a process
/// that no longer runs, or a port nothing answers on, which the reader tells apart.
struct ServeRecord: Codable, Equatable {
    /// The proxy's base URL.
    var url: String
    /// The serving process.
    var pid: Int32
    /// `SpoolProxy.controlToken`.
    var controlToken: String
    /// The key the proxy signs its URLs with, base64.
    var urlKey: String

    static func file(in directory: URL) -> URL {
        directory.appendingPathComponent("serve.json")
    }

    /// The key in `urlKey`, if it is one.
    var key: ProxyURLKey? {
        Data(base64Encoded: urlKey).flatMap { try? ProxyURLKey(data: $0) }
    }

    /// Whether the process that wrote the record still runs.
    var processRuns: Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Writes the record, replacing any: made with mode 0600 (it holds secrets) under a temporary name, then
    /// renamed, so a reader sees a whole record or the previous one, and nobody else ever sees it.
    func write(in directory: URL) throws {
        let data = try JSONEncoder().encode(self)
        let temporary = directory.appendingPathComponent(".serve-\(UUID().uuidString).json")
        do {
            try PrivateFile.create(at: temporary.path, with: data)
        } catch {
            throw CommandFailure(message: "cannot write \(temporary.path): \(error)")
        }
        guard rename(temporary.path, Self.file(in: directory).path) == 0 else {
            unlink(temporary.path)
            throw CommandFailure(message: "cannot write \(Self.file(in: directory).path)")
        }
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
