import Foundation
import Spool

/// The JSON a client sends to `PUT /preload`: the feed's items in order and the one playing.
struct PreloadFeedMessage: Decodable {
    /// One item: `url` is a proxy URL the app gives its player (`http://127.0.0.1:PORT/o/…`) or the origin
    /// URL; `seconds` or `bytes` overrides the proxy's target for it.
    struct Item: Decodable {
        var url: String
        var id: String?
        var seconds: Double?
        var bytes: Int64?
    }

    var items: [Item]
    var current: Int?
}

/// The JSON a client sends to `PUT /preload/current` on a swipe: the index or the id of the item now playing.
struct PreloadCurrentMessage: Decodable {
    var index: Int?
    var id: String?
}

/// The JSON the proxy answers every `/preload` request with: each item's state, in feed order, and the
/// preloader's totals.
struct PreloadStatusMessage: Encodable {
    struct Item: Encodable {
        var id: String
        /// `idle` (never in the window), `queued`, `waiting` (for the device's conditions), `loading`, `loaded`,
        /// `cancelled` or `failed`.
        var state: String
        /// Bytes stored by its download so far (`loading`, `loaded`).
        var bytes: Int64?
        /// Bytes its plan covers (`loading`).
        var total: Int64?
        /// Why it failed (`failed`).
        var failure: String?
        /// What it waits for (`waiting`): `TransferBlocker`'s names, such as `constrainedNetwork`.
        var waitingFor: [TransferBlocker]?
    }

    var current: Int?
    var items: [Item]
    var totals: PreloadTotals

    init(ids: [String], current: Int?, states: [String: PreloadState], totals: PreloadTotals) {
        self.current = current
        items = ids.map { id in
            switch states[id] {
            case nil: Item(id: id, state: "idle")
            case .queued: Item(id: id, state: "queued")
            case .waiting(let blockers): Item(id: id, state: "waiting", waitingFor: blockers)
            case .loading(let bytes, let total): Item(id: id, state: "loading", bytes: bytes, total: total)
            case .loaded(let bytes): Item(id: id, state: "loaded", bytes: bytes)
            case .cancelled: Item(id: id, state: "cancelled")
            case .failed(let reason): Item(id: id, state: "failed", failure: reason)
            }
        }
        self.totals = totals
    }
}
