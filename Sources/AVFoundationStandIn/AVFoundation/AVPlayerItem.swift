#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVPlayerItem`: an asset placed in a player.
///
/// Checked against the iOS 18.0 SDK's `AVPlayerItem.h` (Xcode 16) and the macOS 26.0 SDK's (Xcode 26): the
/// class is `NS_SWIFT_UI_ACTOR`, so `init(asset:)` and `asset` are main-actor isolated ("because AVAsset is
/// not Sendable"), while `init(url:)` is `NS_SWIFT_NONISOLATED`. The iOS 17 SDK had no isolation at all.
@MainActor
open class AVPlayerItem: NSObject {
    /// Posted (object: the item) when the item has played to its end. A global `NSNotificationName` constant
    /// outside the class in every SDK checked (`AVF_EXPORT`), so not isolated; it may be posted on any thread.
    nonisolated public static let didPlayToEndTimeNotification = Notification.Name(
        "AVPlayerItemDidPlayToEndTimeNotification")
    /// Posted (object: the item) when media did not arrive in time to continue playback (iOS 6). A global
    /// constant like the others, so not isolated; posted on any thread.
    nonisolated public static let playbackStalledNotification = Notification.Name(
        "AVPlayerItemPlaybackStalledNotification")
    /// Posted (object: the item) when a new access log entry has been added (iOS 6); posted on any thread.
    nonisolated public static let newAccessLogEntryNotification = Notification.Name(
        "AVPlayerItemNewAccessLogEntryNotification")

    /// The asset this item plays (`nonnull`, read-only; main-actor isolated in the Xcode 26 SDK).
    public var asset: AVAsset { storedAsset.value }

    // Boxed so that the nonisolated `init(url:)` can set it; read only through the isolated `asset`.
    private let storedAsset: UncheckedBox<AVAsset>
    /// The access log's events as a simulated playback (`SimulatedPlayback`) writes them.
    let accessLogEvents = Locked<[AVPlayerItemAccessLogEvent]>([])
    /// The metric events a simulated playback publishes (`AVMetricEventStreamPublisher`, iOS 18).
    nonisolated let metricEvents = MetricEventHub()

    /// A snapshot of the item's access log; `nil` before playback has logged anything (the SDK allows a log
    /// before the first notification too). `NS_SWIFT_NONISOLATED`, iOS 4.3.
    nonisolated public func accessLog() -> AVPlayerItemAccessLog? {
        let events = accessLogEvents.withLock { $0 }
        return events.isEmpty ? nil : AVPlayerItemAccessLog(events: events)
    }

    /// Creates an item for `asset` (`initWithAsset:`).
    public init(asset: AVAsset) {
        storedAsset = UncheckedBox(value: asset)
        super.init()
    }

    /// Creates an item for a plain `AVURLAsset` of `URL` (`initWithURL:`). `NS_SWIFT_NONISOLATED`.
    nonisolated public init(url URL: URL) {
        storedAsset = UncheckedBox(value: AVURLAsset(url: URL))
        super.init()
    }

    // The item's metric sequences end with it.
    deinit {
        metricEvents.end()
    }
}

/// `AVPlayerItem (AVMetricEventStreamPublisher)`: an item publishes its playback's metric events (iOS 18).
extension AVPlayerItem: AVMetricEventStreamPublisher, MetricEventSource {}
#endif
