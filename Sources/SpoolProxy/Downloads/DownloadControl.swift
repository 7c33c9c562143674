import Foundation
import NIOHTTP1
import Spool
import SpoolDownloads

/// The proxy's download API: an app that drives the proxy over HTTP (`spool serve`, from any language) queues
/// downloads for offline play, pauses, resumes and removes them, and watches them, through the proxy's
/// `DownloadQueue`.
///
/// - `PUT /downloads` with `{"items": [{"url": …, "id": …, "title": …, "kind": "file" | "hls", "variants":
///   "highest" | "first" | "all", "maxBandwidth": …, "maxHeight": …}]}` adds them at the end of the queue, in
///   one write. Only `url` is needed: the id defaults to the URL, and without `kind` the proxy looks.
/// - `PUT /downloads/state` with `{"ids": […], "state": "paused" | "queued"}` pauses or resumes them.
/// - `DELETE /downloads` with `{"ids": […]}` (or `?id=…&id=…`) removes them, and what they stored.
/// - `GET /downloads`: every download's state, in queue order, and the totals; with `?check=stored`, completed
///   downloads whose bytes were removed go back to the queue first (`DownloadQueue.checkStored()`).
///
/// Each answers with the queue as JSON. A change names every download it touches: nothing empties the queue by
/// accident. Changes take `PUT` and `DELETE`, never `POST`, for the reason `PreloadControl` gives: no web page
/// can send them without a preflight the proxy does not answer.
final class DownloadControl: Sendable {
    /// The queue's path.
    static let path = SpoolProxy.downloadsPath
    /// The path that pauses and resumes.
    static let statePath = "/downloads/state"
    /// The most items in one request.
    static let itemLimit = 10_000

    /// The queue the API drives; `nil` when the proxy runs none.
    let queue: DownloadQueue?
    private let configuration: ProxyConfiguration
    /// Checks the proofs of the proxy URLs items name.
    private let signer: URLSigner

    init(queue: DownloadQueue?, configuration: ProxyConfiguration, signer: URLSigner) {
        self.signer = signer
        self.queue = queue
        self.configuration = configuration
    }

    /// Whether `uri` names the download API.
    static func handles(_ uri: String) -> Bool {
        let path = ProxyResponder.path(of: uri)
        return path == Self.path || path == Self.statePath
    }

    /// Carries out a request to the API; returns the queue as JSON. Throws a `FailureResponse` for a request it
    /// refuses: 400 with what is wrong, 403 for an origin host not allowed, 404 when the proxy runs no queue,
    /// 405, 413 (too many items), 502 when the origin cannot say whether a URL is a playlist, 503 once the
    /// queue is stopped.
    func answer(method: HTTPMethod, uri: String, body: [UInt8]) async throws -> [UInt8] {
        guard let queue else {
            throw FailureResponse(
                status: 404, reason: "this proxy runs no download queue (another process may run its cache's)")
        }
        let isState = ProxyResponder.path(of: uri) == Self.statePath
        do {
            switch (method, isState) {
            case (.GET, _), (.HEAD, _):
                // Asked by whoever removed entries in another process (`spool rm`, `clear`) or lists the queue
                // (`spool download ls`): a completed download whose bytes went goes back to the queue. Not on
                // every look: `spool download run` follows the queue four times a second, and the check reads
                // every completed download's index records.
                let query = URLComponents(string: "http://proxy" + uri)?.queryItems ?? []
                if query.contains(where: { $0.name == "check" && $0.value == "stored" }) {
                    try await queue.checkStored()
                }
            case (.PUT, false):
                let message = try ControlJSON.decode(DownloadAddMessage.self, from: body)
                guard message.items.count <= Self.itemLimit else {
                    throw FailureResponse(status: 413, reason: "more than \(Self.itemLimit) items")
                }
                var requests: [DownloadRequest] = []
                for (index, item) in message.items.enumerated() {
                    requests.append(try await request(item, number: index + 1, queue: queue))
                }
                var seen = Set<String>()
                for request in requests where !seen.insert(request.id).inserted {
                    throw FailureResponse(
                        status: 400, reason: "two items with the id \(request.id); give each an \"id\" of its own")
                }
                try await queue.add(contentsOf: requests)
            case (.PUT, true):
                let message = try ControlJSON.decode(DownloadStateChangeMessage.self, from: body)
                try known(message.ids, in: queue)
                switch message.state {
                case "paused": for id in message.ids { try await queue.pause(id) }
                case "queued": for id in message.ids { try await queue.resume(id) }
                default:
                    throw FailureResponse(
                        status: 400, reason: "state is \"paused\" or \"queued\", not \"\(message.state)\"")
                }
            case (.DELETE, false):
                let ids = try removals(uri: uri, body: body)
                try known(ids, in: queue)
                for id in ids { try await queue.remove(id) }
            default:
                let allowed = isState ? "GET, HEAD, PUT" : "GET, HEAD, PUT, DELETE"
                throw FailureResponse(status: 405, reason: allowed, headers: [HeaderField("Allow", allowed)])
            }
        } catch DownloadQueue.Failure.stopped {
            throw FailureResponse(status: 503, reason: "the download queue was stopped")
        } catch let failure as DownloadQueue.Failure {
            throw FailureResponse(status: 500, reason: failure.description)
        }
        return try ControlJSON.encode(
            DownloadStatusMessage(directory: queue.cache.configuration.directory, items: queue.items))
    }

    /// The download an item of `PUT /downloads` asks for; its kind from the origin when it says none.
    private func request(_ item: DownloadAddMessage.Item, number: Int, queue: DownloadQueue) async throws
        -> DownloadRequest
    {
        let url = try ControlItemURL.origin(of: item.url, number: number, configuration: configuration, signer: signer)
        let choice: HLSVariantChoice
        switch (item.variants, item.maxBandwidth, item.maxHeight) {
        case (nil, nil, nil), ("highest", nil, nil): choice = .highest
        case ("first", nil, nil): choice = .first
        case ("all", nil, nil): choice = .all
        case (nil, let bits?, nil) where bits > 0: choice = .bandwidth(atMost: bits)
        case (nil, nil, let height?) where height > 0: choice = .resolution(maximumHeight: height)
        default:
            throw FailureResponse(
                status: 400,
                reason: "item \(number): give one of \"variants\" (highest, first, all), \"maxBandwidth\" or "
                    + "\"maxHeight\" (positive)")
        }
        let isStream: Bool
        switch item.kind {
        case "file": isStream = false
        case "hls": isStream = true
        case nil:
            do {
                isStream = try await HLSPinning(cache: queue.cache).isPlaylistOrNamedOne(url)
            } catch {
                throw FailureResponse(
                    status: 502,
                    reason: "item \(number): the origin cannot tell a playlist from a file (\(error)); "
                        + "give \"kind\"")
            }
        case let other?:
            throw FailureResponse(status: 400, reason: "item \(number): kind is \"file\" or \"hls\", not \"\(other)\"")
        }
        return DownloadRequest(
            url: url, id: item.id, kind: isStream ? .hls(variants: choice) : .file, title: item.title)
    }

    /// The ids a `DELETE` names: its `id` query items, else its body's.
    private func removals(uri: String, body: [UInt8]) throws -> [String] {
        let query = URLComponents(string: "http://proxy" + uri)?.queryItems ?? []
        let named = query.filter { $0.name == "id" }.compactMap(\.value)
        let ids =
            named.isEmpty && !body.isEmpty ? try ControlJSON.decode(DownloadRemoveMessage.self, from: body).ids : named
        guard !ids.isEmpty else {
            throw FailureResponse(status: 400, reason: "name the downloads to remove: {\"ids\": […]} or ?id=…")
        }
        return ids
    }

    /// Refuses a change that names a download the queue does not have, before anything changes.
    private func known(_ ids: [String], in queue: DownloadQueue) throws {
        let present = Set(queue.items.map(\.request.id))
        if let unknown = ids.first(where: { !present.contains($0) }) {
            throw FailureResponse(status: 400, reason: "no download \(unknown) in the queue")
        }
    }
}
