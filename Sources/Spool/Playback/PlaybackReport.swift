import Foundation

/// What the cache did for one item's playback: how soon it started, how often it waited, and where its bytes
/// came from. The same shape for every path: a `SpoolAsset` played by AVPlayer, any player through the proxy.
///
/// A report is finished when the item's playback ends: an asset's when it goes away (its player item was
/// released) or `SpoolAsset.finishPlaybackReport()` is called, a proxied item's once no request for it came
/// for `PlaybackReports.idleInterval` (or when the proxy stops). It names the item by its URL without
/// credentials (`CacheKeyPolicy`'s display form, no token or signature) and holds nothing about the user.
public struct PlaybackReport: Sendable, Equatable, Codable {
    /// Which way the player read the item.
    public enum Path: String, Sendable, Codable {
        /// AVPlayer, through a `SpoolAsset`'s resource loader.
        case avPlayer
        /// Any player, through the local caching proxy.
        case proxy
    }

    /// How much of the item's start was on disk, which is what decides how soon it plays: the split a
    /// dashboard wants beside its startup times.
    public enum Start: String, Sendable, Codable, CaseIterable {
        /// The first `PlaybackReports.startBytes` bytes the player took all came from disk.
        case fromCache
        /// Some of them came from disk, the rest from the origin.
        case partlyCached
        /// None of them came from disk.
        case cold
    }

    /// The item's URL without credentials, token or signature query items.
    public var item: String
    /// Which way the player read it.
    public var path: Path
    /// When the player asked for the item's first bytes.
    public var startedAt: Date
    /// How much of its start was on disk.
    public var start: Start
    /// Seconds from the player's first request to the first byte it received; `nil` when none was.
    public var timeToFirstByte: TimeInterval?
    /// Seconds from the player's first request to playback being ready: AVPlayer's startup time from its
    /// access log; through the proxy, the first byte of the first media response (a segment's, not a
    /// playlist's). `nil` when unknown.
    public var timeToStart: TimeInterval?
    /// Stalls the player reported (AVPlayer's access log and stall notifications, and on iOS 18 and macOS 15
    /// its metric events; any player that sends CMCD, the requests whose `bs` said its buffer ran dry since
    /// the last); `nil` where the player reports none (the proxy cannot see a silent player's buffer: its
    /// `originWaits` are the closest it sees).
    public var stalls: Int?
    /// Seconds the player spent stalled, where it reports that (AVPlayer's metric events, `AVMetrics`, on iOS
    /// 18 and macOS 15: each stall until the item is likely to keep up again, or the session summary's
    /// `timeSpentRecoveringFromStall`; a stall still going on when the report is finished counts until then);
    /// `nil` elsewhere (the access log of earlier systems does not tell it, nor can the proxy see it).
    public var rebufferingTime: TimeInterval?
    /// Seconds the player played, where it reports that; `nil` elsewhere.
    public var playingTime: TimeInterval?
    /// Bytes the player received from disk.
    public var bytesFromCache: Int64
    /// Of `bytesFromCache`, those a preload, a prefetch or the proxy's HLS read-ahead of this process had
    /// fetched ahead of playback.
    public var bytesFromPreload: Int64
    /// Of `bytesFromCache`, those a download or pin of this process had fetched.
    public var bytesFromDownload: Int64
    /// Bytes the player had to wait for from the origin.
    public var bytesFromOrigin: Int64
    /// The player's requests answered entirely from disk.
    public var requestsFromCache: Int
    /// The player's requests that needed the origin.
    public var requestsFromOrigin: Int
    /// How many times, after the item's first byte (its start is `timeToFirstByte`), a read of the player's
    /// waited at least `PlaybackReports.noticeableWait` for bytes from the origin: the stalls and slow seeks the
    /// origin caused, as far as the cache can tell. Not every one is a stall: a player with seconds buffered
    /// plays on through it, and a wait before the first frame (a `moov` fetched from a file's end) is part of
    /// the start.
    public var originWaits: Int
    /// Seconds the player's reads spent in those waits, overlapping waits counted once.
    public var originWaitTime: TimeInterval

    /// A report with these figures.
    package init(
        item: String, path: Path, startedAt: Date, start: Start, timeToFirstByte: TimeInterval? = nil,
        timeToStart: TimeInterval? = nil, stalls: Int? = nil, rebufferingTime: TimeInterval? = nil,
        playingTime: TimeInterval? = nil, bytesFromCache: Int64 = 0, bytesFromPreload: Int64 = 0,
        bytesFromDownload: Int64 = 0, bytesFromOrigin: Int64 = 0, requestsFromCache: Int = 0,
        requestsFromOrigin: Int = 0, originWaits: Int = 0, originWaitTime: TimeInterval = 0
    ) {
        self.item = item
        self.path = path
        self.startedAt = startedAt
        self.start = start
        self.timeToFirstByte = timeToFirstByte
        self.timeToStart = timeToStart
        self.stalls = stalls
        self.rebufferingTime = rebufferingTime
        self.playingTime = playingTime
        self.bytesFromCache = bytesFromCache
        self.bytesFromPreload = bytesFromPreload
        self.bytesFromDownload = bytesFromDownload
        self.bytesFromOrigin = bytesFromOrigin
        self.requestsFromCache = requestsFromCache
        self.requestsFromOrigin = requestsFromOrigin
        self.originWaits = originWaits
        self.originWaitTime = originWaitTime
    }

    /// Stalled time over stalled plus played time, 0 to 1, where the player reports both; `nil` elsewhere.
    public var rebufferingRatio: Double? {
        guard let rebufferingTime, let playingTime, rebufferingTime + playingTime > 0 else { return nil }
        return rebufferingTime / (rebufferingTime + playingTime)
    }
}
