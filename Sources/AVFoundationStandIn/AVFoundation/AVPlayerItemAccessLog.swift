#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVPlayerItemAccessLog`: the events of an item's playback, one per
/// uninterrupted period, oldest first.
///
/// Checked against the iOS 26.2 SDK's `AVPlayerItem.h` (Xcode 26.2) and the iOS 17.0 SDK's (Xcode 15):
/// `NS_SWIFT_SENDABLE`, `AV_INIT_UNAVAILABLE` (no public initializer), `events` read-only. Like the real log,
/// an instance is a snapshot: `AVPlayerItem.accessLog()` makes a new one each time.
public final class AVPlayerItemAccessLog: NSObject, @unchecked Sendable {
    /// The events, oldest first (`events`, `nonnull`).
    public let events: [AVPlayerItemAccessLogEvent]

    init(events: [AVPlayerItemAccessLogEvent]) {
        self.events = events
        super.init()
    }
}

/// Stand-in for AVFoundation's `AVPlayerItemAccessLogEvent`: the figures of one uninterrupted period of
/// playback. Only the members Spool reads (each one as the SDK declares it, negative when unknown).
///
/// Checked against the iOS 26.2 SDK's `AVPlayerItem.h` and the iOS 17.0 SDK's: `NS_SWIFT_SENDABLE`, every
/// property read-only; `startupTime` since iOS 7, the others since iOS 4.3.
public final class AVPlayerItemAccessLogEvent: NSObject, @unchecked Sendable {
    /// When playback of the period started ("date" and "time"; nullable).
    public let playbackStartDate: Date?
    /// Seconds played ("c-duration-watched"); negative if unknown.
    public let durationWatched: TimeInterval
    /// Stalls ("c-stalls"); negative if unknown.
    public let numberOfStalls: Int
    /// Seconds until the item was ready to play ("c-startup-time"); negative if unknown.
    public let startupTime: TimeInterval
    /// Bytes transferred ("bytes"); negative if unknown.
    public let numberOfBytesTransferred: Int64

    init(
        playbackStartDate: Date?, durationWatched: TimeInterval, numberOfStalls: Int, startupTime: TimeInterval,
        numberOfBytesTransferred: Int64
    ) {
        self.playbackStartDate = playbackStartDate
        self.durationWatched = durationWatched
        self.numberOfStalls = numberOfStalls
        self.startupTime = startupTime
        self.numberOfBytesTransferred = numberOfBytesTransferred
        super.init()
    }
}
#endif
