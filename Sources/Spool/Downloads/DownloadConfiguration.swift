import Foundation

/// How a `DownloadQueue` downloads.
public struct DownloadConfiguration: Sendable {
    /// Downloads at a time. Two keep a link busy without spreading it over many half-done items: an album
    /// fills track by track, so a flight that boards early has whole tracks.
    public var maximumConcurrentDownloads: Int
    /// When downloads may run (by default Wi-Fi or wired, not in Low Power Mode, 500 MB left free).
    public var rules: TransferRules
    /// Whether the queue downloads (the default). One that does not only keeps the list: for a tool that edits
    /// the queue and leaves the downloading to a later run.
    public var startsDownloads: Bool

    /// A configuration.
    public init(
        maximumConcurrentDownloads: Int = 2, rules: TransferRules = .downloads, startsDownloads: Bool = true
    ) {
        self.maximumConcurrentDownloads = max(1, maximumConcurrentDownloads)
        self.rules = rules
        self.startsDownloads = startsDownloads
    }
}
