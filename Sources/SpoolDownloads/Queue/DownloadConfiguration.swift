import Foundation
import Spool

/// How a `DownloadQueue` downloads.
public struct DownloadConfiguration: Sendable {
    /// Downloads at a time. Two keep a link busy without spreading it over many half-done items: an album
    /// fills track by track, so a flight that boards early has whole tracks. Against one host, the cache's
    /// transfer scheduler runs at most two downloads' requests at once whatever this says (it keeps places for
    /// playback's read-ahead, prefetches and preloads); more count across hosts.
    public var maximumConcurrentDownloads: Int
    /// When downloads may run (by default Wi-Fi or wired, not in Low Power Mode, 500 MB left free).
    public var rules: TransferRules
    /// Whether the queue downloads (the default). One that does not only keeps the list: for a tool that edits
    /// the queue and leaves the downloading to a later run.
    public var startsDownloads: Bool
    /// Seconds between looks at the free disk space while downloads wait for it (by default 10): free space has
    /// no event, and the user may free some at any time. A running download looks every MiB it stores.
    public var diskRecheckInterval: TimeInterval

    /// A configuration.
    public init(
        maximumConcurrentDownloads: Int = 2, rules: TransferRules = .downloads, startsDownloads: Bool = true,
        diskRecheckInterval: TimeInterval = 10
    ) {
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
        self.rules = rules
        self.startsDownloads = startsDownloads
        self.diskRecheckInterval = max(0.01, diskRecheckInterval)
    }
}
