import Foundation
import Spool
import SpoolDownloads

/// The JSON a client sends to `PUT /downloads`: downloads to add at the end of the queue.
package struct DownloadAddMessage: Codable, Sendable {
    /// One download: `url` is a proxy URL the app gives its player or the origin URL.
    package struct Item: Codable, Sendable {
        package var url: String
        /// By default the URL.
        package var id: String?
        package var title: String?
        /// `file` or `hls`; without it the proxy looks (one request, whose answer is cached).
        package var kind: String?
        /// For a master playlist: `highest` (the default), `first` or `all`.
        package var variants: String?
        /// For a master playlist: the highest variant of at most this many bits per second.
        package var maxBandwidth: Int?
        /// For a master playlist: the highest variant at most this many pixels tall.
        package var maxHeight: Int?

        /// An item for `request`, as the command line sends it.
        package init(_ request: DownloadRequest) {
            url = request.url.absoluteString
            id = request.id
            title = request.title
            switch request.kind {
            case .file: kind = "file"
            case .hls(let choice):
                kind = "hls"
                (variants, maxBandwidth, maxHeight) = Self.fields(of: choice)
            }
        }

        /// An item for `url`, whose kind the proxy finds out (an HLS playlist's variants by `variants`).
        package init(url: URL, title: String?, variants: HLSVariantChoice) {
            self.url = url.absoluteString
            self.title = title
            (self.variants, maxBandwidth, maxHeight) = Self.fields(of: variants)
        }

        /// The JSON fields that name `choice`.
        static func fields(of choice: HLSVariantChoice) -> (String?, Int?, Int?) {
            switch choice {
            case .highest: ("highest", nil, nil)
            case .first: ("first", nil, nil)
            case .all: ("all", nil, nil)
            case .bandwidth(let atMost): (nil, atMost, nil)
            case .resolution(let maximumHeight): (nil, nil, maximumHeight)
            }
        }
    }

    package var items: [Item]

    package init(items: [Item]) {
        self.items = items
    }
}

/// The JSON a client sends to `PUT /downloads/state`: `paused` pauses the downloads, `queued` resumes them.
package struct DownloadStateChangeMessage: Codable, Sendable {
    package var ids: [String]
    package var state: String

    package init(ids: [String], state: String) {
        self.ids = ids
        self.state = state
    }
}

/// The JSON a client may send with `DELETE /downloads` (or `?id=…` items in the target): what to remove.
package struct DownloadRemoveMessage: Codable, Sendable {
    package var ids: [String]

    package init(ids: [String]) {
        self.ids = ids
    }
}

/// The JSON every `/downloads` request is answered with: the queue in order, and its totals.
package struct DownloadStatusMessage: Codable, Sendable {
    /// One download and where it stands.
    package struct Item: Codable, Sendable {
        package var id: String
        /// The origin URL.
        package var url: String
        package var title: String?
        /// `file` or `hls`.
        package var kind: String
        /// `queued`, `waiting` (for the device's conditions), `downloading`, `paused`, `completed` or `failed`.
        package var state: String
        /// Bytes stored (`downloading`, `completed`).
        package var bytes: Int64?
        /// Bytes known to download (`downloading`; 0 until known).
        package var total: Int64?
        /// What it waits for (`waiting`): `TransferBlocker`'s names, such as `expensiveNetwork`.
        package var waitingFor: [TransferBlocker]?
        /// Why it failed (`failed`).
        package var failure: String?

        init(_ item: DownloadItem) {
            id = item.request.id
            url = item.request.url.absoluteString
            title = item.request.title
            if case .hls = item.request.kind { kind = "hls" } else { kind = "file" }
            switch item.state {
            case .queued: state = "queued"
            case .waiting(let blockers): (state, waitingFor) = ("waiting", blockers)
            case .downloading(let bytes, let total): (state, self.bytes, self.total) = ("downloading", bytes, total)
            case .paused: state = "paused"
            case .completed(let bytes): (state, self.bytes) = ("completed", bytes)
            case .failed(let reason): (state, failure) = ("failed", reason)
            }
        }

        /// The state this item names; `nil` for a state this build does not know.
        package var downloadState: DownloadState? {
            switch state {
            case "queued": .queued
            case "waiting": .waiting(waitingFor ?? [])
            case "downloading": .downloading(bytes: bytes ?? 0, total: total ?? 0)
            case "paused": .paused
            case "completed": .completed(bytes: bytes ?? 0)
            case "failed": .failed(failure ?? "failed")
            default: nil
            }
        }
    }

    /// How many downloads are in each state, and the bytes of those downloading and completed.
    package struct Totals: Codable, Sendable {
        package var items = 0
        package var completed = 0
        package var downloading = 0
        package var waiting = 0
        package var queued = 0
        package var paused = 0
        package var failed = 0
        /// Bytes stored by the downloads downloading and completed.
        package var bytes: Int64 = 0
    }

    /// The cache directory whose queue this is: a client that found the proxy by its cache checks it.
    package var directory: String
    package var items: [Item]
    package var totals: Totals

    init(directory: URL, items: [DownloadItem]) {
        self.directory = directory.standardizedFileURL.path
        self.items = items.map(Item.init)
        var totals = Totals()
        totals.items = items.count
        for item in items {
            switch item.state {
            case .queued: totals.queued += 1
            case .waiting: totals.waiting += 1
            case .downloading(let bytes, _):
                totals.downloading += 1
                totals.bytes += bytes
            case .paused: totals.paused += 1
            case .completed(let bytes):
                totals.completed += 1
                totals.bytes += bytes
            case .failed: totals.failed += 1
            }
        }
        self.totals = totals
    }
}
