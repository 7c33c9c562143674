import Foundation
import Spool
import SpoolDownloads
import SpoolProxy

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The download queue of a cache while `spool serve` runs it: the download commands go to serve's download
/// API instead of failing on the queue's lock.
struct ServedQueue: Sendable {
    /// The proxy's base URL.
    let baseURL: URL
    /// The serving process.
    let pid: Int32
    /// The proxy's control token.
    let controlToken: String

    /// The serve that runs the queue of `directory`: the one its record names, if that proxy answers for the
    /// same directory (a record a killed serve left names a dead port, or another proxy's).
    static func find(in directory: URL) async -> ServedQueue? {
        guard let record = ServeRecord.read(in: directory), let url = URL(string: record.url) else { return nil }
        let served = ServedQueue(baseURL: url, pid: record.pid, controlToken: record.controlToken)
        guard let status = try? await served.status(),
            status.directory == directory.standardizedFileURL.path
        else { return nil }
        return served
    }

    /// The queue as serve has it, running items with their progress; `checkingStored` first sends completed
    /// downloads whose bytes were removed back to the queue.
    func status(checkingStored: Bool = false) async throws -> DownloadStatusMessage {
        try await call("GET", SpoolProxy.downloadsPath + (checkingStored ? "?check=stored" : ""))
    }

    /// Adds `items` at the end of serve's queue, in one write. Serve tells playlists from files itself: a look
    /// from this process would store bytes serve's index does not know of yet, and serve would fetch them again.
    func add(_ items: [DownloadAddMessage.Item]) async throws {
        _ = try await call("PUT", SpoolProxy.downloadsPath, body: DownloadAddMessage(items: items))
    }

    /// Pauses (`paused`) or resumes (`queued`) the downloads `ids`.
    func set(_ ids: [String], to state: String) async throws {
        _ = try await call(
            "PUT", SpoolProxy.downloadsPath + "/state", body: DownloadStateChangeMessage(ids: ids, state: state))
    }

    /// Removes the downloads `ids` and what they stored.
    func remove(_ ids: [String]) async throws {
        _ = try await call("DELETE", SpoolProxy.downloadsPath, body: DownloadRemoveMessage(ids: ids))
    }

    private func call(_ method: String, _ path: String, body: (any Encodable & Sendable)? = nil) async throws
        -> DownloadStatusMessage
    {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!, timeoutInterval: 30)
        request.httpMethod = method
        request.setValue("Bearer \(controlToken)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = try JSONEncoder().encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let reason = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw CommandFailure(message: "spool serve (pid \(pid)) refused: \(status) \(reason)")
        }
        return try JSONDecoder().decode(DownloadStatusMessage.self, from: data)
    }
}
