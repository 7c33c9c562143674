/// Where the preloading of one item stands.
public enum PreloadState: Sendable, Equatable {
    /// In the window, waiting for a download slot, for the current item, or for playback to need the link
    /// less.
    case queued
    /// Waiting for the device's conditions to allow it (`PreloadConfiguration.rules`): a constrained network,
    /// for one. A download in progress stops when they stop allowing it, and goes on when they allow it again.
    case waiting([TransferBlocker])
    /// Downloading: `bytes` of the plan's `total` are stored (the total grows while an HLS stream's segment
    /// lengths become known).
    case loading(bytes: Int64, total: Int64)
    /// The target is stored.
    case loaded(bytes: Int64)
    /// It left the window before it loaded; what it stored stays cached.
    case cancelled
    /// The download failed (the origin, the disk); the description says why.
    case failed(String)
}

/// A change of one item's `PreloadState`: the item's id and its new state.
public typealias PreloadEvent = (itemID: String, state: PreloadState)

/// What a preloader has done, for an app's analytics.
public struct PreloadTotals: Sendable, Equatable, Codable {
    /// Items whose preloading started.
    public var itemsStarted = 0
    /// Items that reached their target.
    public var itemsLoaded = 0
    /// Bytes preloading stored that were not cached before (the current item's own are left out: its
    /// player fetches them too).
    public var bytesPreloaded: Int64 = 0
    /// Of those, bytes playback read after, counted when the item left the window.
    public var bytesPlayed: Int64 = 0
    /// Of those, bytes playback had not read when the item left the window (or the preloader stopped).
    public var bytesWasted: Int64 = 0
}
