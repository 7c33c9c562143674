import Foundation
import Spool

/// One download for offline play: a file, or an HLS stream with the variants to keep.
public struct DownloadRequest: Sendable, Equatable, Codable {
    /// What identifies it in the queue (by default its URL): adding a request with the same id again changes
    /// nothing but a failed download, which starts again.
    public var id: String
    /// The file or the playlist (an HLS master or media playlist).
    public var url: URL
    /// Whether it is a file or an HLS stream.
    public var kind: DownloadKind
    /// What the app shows for it (an album's track name); kept with the queue, never used by Spool.
    public var title: String?

    /// A request for `url`.
    public init(url: URL, id: String? = nil, kind: DownloadKind = .file, title: String? = nil) {
        self.url = url
        self.id = id ?? url.absoluteString
        self.kind = kind
        self.title = title
    }
}

/// What a download fetches.
public enum DownloadKind: Sendable, Equatable, Codable {
    /// One file, whole.
    case file
    /// An HLS stream: its playlists, the `variants` chosen from a master and the renditions they name, every
    /// segment, key and initialization section (see `HLSPinning`).
    case hls(variants: HLSVariantChoice)
}

/// Where a download stands.
public enum DownloadState: Sendable, Equatable {
    /// Waiting for a download slot.
    case queued
    /// Waiting for the device's conditions to allow it (`DownloadConfiguration.rules`): an expensive network,
    /// Low Power Mode, a disk whose free space is below the reserve.
    case waiting([TransferBlocker])
    /// Downloading: `bytes` of `total` are stored (for a file; for an HLS stream, of the resources known so
    /// far: the total grows as the playlists are read). `total` is 0 until the size is known.
    case downloading(bytes: Int64, total: Int64)
    /// Paused by the app; what it stored stays, kept from eviction.
    case paused
    /// Every byte is stored and kept from eviction: it plays with no origin request.
    case completed(bytes: Int64)
    /// It failed; the description says why. Adding or resuming it starts it again from its first missing byte.
    case failed(String)
}

/// A download and where it stands.
public struct DownloadItem: Sendable, Equatable {
    /// What was asked for.
    public var request: DownloadRequest
    /// Where it stands.
    public var state: DownloadState
}

/// A change of one download's state.
public struct DownloadEvent: Sendable, Equatable {
    /// The download's id.
    public var id: String
    /// Its new state; `nil` when it was removed.
    public var state: DownloadState?
}
