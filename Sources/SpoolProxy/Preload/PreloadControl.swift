import Foundation
import NIOHTTP1
import Spool

/// The proxy's preload API: an app that drives the proxy over HTTP (`spool serve`, from any language) tells
/// it the feed and each swipe, and its `SpoolPreloader` keeps the next items preloaded.
///
/// - `PUT /preload` with `{"items": [{"url": …, "id": …, "seconds": … | "bytes": …}, …], "current": 0}`
///   replaces the feed. An item's `url` is the proxy URL its player opens, or the origin URL; `id` defaults
///   to the URL.
/// - `PUT /preload/current` with `{"index": 3}` or `{"id": "…"}`: the user moved.
/// - `GET /preload`: every item's state and the totals; `DELETE /preload` empties the feed.
///
/// Each answers with the state as JSON. Only a caller with the proxy's control token reaches it
/// (`RequestAdmission`): a page that rebound its host name to the proxy is same-origin with it, so no browser
/// rule stands in the way. Changes take `PUT` and `DELETE` only, never `POST`, which no page could send across
/// origins without a preflight the proxy does not answer: a second wall, not the first.
final class PreloadControl: Sendable {
    /// The feed's path.
    static let path = SpoolProxy.preloadPath
    /// The path that moves the current item.
    static let currentPath = "/preload/current"
    /// The largest request body taken: ten thousand items with long URLs fit.
    static let bodyLimit = 4 << 20
    /// The most items in a feed.
    static let itemLimit = 10_000

    let preloader: SpoolPreloader
    private let configuration: ProxyConfiguration
    /// Checks the proofs of the proxy URLs items name.
    private let signer: URLSigner
    /// The ids of the feed's items, in order, and the current index, as the last change set them.
    private let feed = LockedBox<(ids: [String], current: Int?)>(([], nil), rank: .preloadFeed)

    init(preloader: SpoolPreloader, configuration: ProxyConfiguration, signer: URLSigner) {
        self.preloader = preloader
        self.configuration = configuration
        self.signer = signer
    }

    /// Whether `uri` names the preload API.
    static func handles(_ uri: String) -> Bool {
        let path = ProxyResponder.path(of: uri)
        return path == Self.path || path == Self.currentPath
    }

    /// Carries out a request to the API; returns the state as JSON. Throws a `FailureResponse` for a
    /// request it refuses: 400 with what is wrong, 403 for an origin host not allowed, 405, 413 (too many items).
    func answer(method: HTTPMethod, uri: String, body: [UInt8]) throws -> [UInt8] {
        let isCurrent = ProxyResponder.path(of: uri) == Self.currentPath
        switch (method, isCurrent) {
        case (.GET, _), (.HEAD, _):
            break
        case (.PUT, false):
            let message = try ControlJSON.decode(PreloadFeedMessage.self, from: body)
            guard message.items.count <= Self.itemLimit else {
                throw FailureResponse(status: 413, reason: "more than \(Self.itemLimit) items")
            }
            let items = try message.items.enumerated().map { try item($1, number: $0 + 1) }
            var seen = Set<String>()
            for item in items where !seen.insert(item.id).inserted {
                throw FailureResponse(
                    status: 400, reason: "two items with the id \(item.id); give each an \"id\" of its own")
            }
            if let current = message.current, !items.indices.contains(current) {
                throw FailureResponse(status: 400, reason: "current is \(current); the feed has \(items.count) items")
            }
            feed.withLock { feed in
                feed = (items.map(\.id), message.current)
                preloader.setItems(items, current: message.current)
            }
        case (.PUT, true):
            let message = try ControlJSON.decode(PreloadCurrentMessage.self, from: body)
            try feed.withLock { feed in
                let found: Int?
                switch (message.index, message.id) {
                case (let index?, nil): found = feed.ids.indices.contains(index) ? index : nil
                case (nil, let id?): found = feed.ids.firstIndex(of: id)
                default: throw FailureResponse(status: 400, reason: "give either \"index\" or \"id\"")
                }
                guard let index = found else {
                    throw FailureResponse(status: 400, reason: "no such item in the feed (\(feed.ids.count) items)")
                }
                feed.current = index
                preloader.setCurrent(index)
            }
        case (.DELETE, false):
            feed.withLock { feed in
                feed = ([], nil)
                preloader.setItems([], current: nil)
            }
        default:
            let allowed = isCurrent ? "GET, HEAD, PUT" : "GET, HEAD, PUT, DELETE"
            throw FailureResponse(status: 405, reason: allowed, headers: [HeaderField("Allow", allowed)])
        }
        return try status()
    }

    /// Every item's state, in feed order, and the totals, as JSON.
    func status() throws -> [UInt8] {
        let (ids, current) = feed.withLock { $0 }
        var states: [String: PreloadState] = [:]
        for id in ids { states[id] = preloader.state(of: id) }
        return try ControlJSON.encode(
            PreloadStatusMessage(ids: ids, current: current, states: states, totals: preloader.totals))
    }

    /// The item a message names: its origin URL, from a proxy URL or as given, on an allowed host.
    private func item(_ message: PreloadFeedMessage.Item, number: Int) throws -> PreloadItem {
        let origin = try ControlItemURL.origin(
            of: message.url, number: number, configuration: configuration, signer: signer)
        let target: PreloadTarget?
        switch (message.seconds, message.bytes) {
        case (nil, nil): target = nil
        case (let seconds?, nil) where seconds > 0 && seconds <= 3600: target = .seconds(seconds)
        case (nil, let bytes?) where bytes > 0: target = .bytes(bytes)
        default:
            throw FailureResponse(
                status: 400, reason: "item \(number): give \"seconds\" (0 to 3600) or \"bytes\" (positive), not both")
        }
        return PreloadItem(url: origin, id: message.id, target: target)
    }
}
