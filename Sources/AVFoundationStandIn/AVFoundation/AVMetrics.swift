#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVMetricEventStreamPublisher` (iOS 18, macOS 15): an object that publishes
/// metric events. `AVPlayerItem` is one (`AVPlayerItem (AVMetricEventStreamPublisher)`).
///
/// Checked against the iOS 26.2 SDK's `AVMetrics.h` and `AVFoundation.swiftinterface` (Xcode 26.2): an
/// Objective-C protocol without requirements; Swift's overlay adds `metrics(forType:)` and `allMetrics()`.
/// The iOS 17.0 and macOS 14.0 SDKs (Xcode 15) have none of this file's types.
public protocol AVMetricEventStreamPublisher {}

extension AVMetricEventStreamPublisher {
    /// The events of `metricType` (and its subclasses) the publisher publishes from now on.
    public func metrics<MetricEvent>(forType metricType: MetricEvent.Type) -> AVMetrics<MetricEvent>
    where MetricEvent: AVMetricEvent {
        AVMetrics(events: (self as? MetricEventSource)?.metricEvents.subscribe() ?? AsyncStream { $0.finish() })
    }

    /// Every event the publisher publishes from now on.
    public func allMetrics() -> AVMetrics<AVMetricEvent> {
        metrics(forType: AVMetricEvent.self)
    }
}

/// Stand-in for the overlay's `AVMetrics`: an `AsyncSequence` of one class of metric events (`@unchecked
/// Sendable`, its iterator's `next()` throws, as the overlay declares them).
public struct AVMetrics<MetricEvent>: AsyncSequence, @unchecked Sendable where MetricEvent: AVMetricEvent {
    /// The element: one event.
    public typealias Element = MetricEvent
    let events: AsyncStream<AVMetricEvent>

    /// An iterator over the events.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: events.makeAsyncIterator())
    }

    /// Iterates the publisher's events of `MetricEvent`'s class.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<AVMetricEvent>.AsyncIterator

        /// The next event of the class; `nil` once the publisher is gone.
        public mutating func next() async throws -> MetricEvent? {
            while let event = await base.next() {
                if let event = event as? MetricEvent { return event }
            }
            return nil
        }
    }
}

/// Stand-in for `AVMetricEvent`: what every metric event carries. `NS_SWIFT_SENDABLE`, `AV_INIT_UNAVAILABLE`;
/// only the members Spool reads (`mediaTime` is left out: the stand-in has no CoreMedia).
open class AVMetricEvent: NSObject, @unchecked Sendable {
    /// When the event occurred (`date`, `nonnull`).
    public let date: Date
    /// The media session's identifier, if any (`sessionID`, nullable).
    public let sessionID: String?

    init(date: Date, sessionID: String? = nil) {
        self.date = date
        self.sessionID = sessionID
        super.init()
    }
}

/// Stand-in for `AVMetricPlayerItemRateChangeEvent`: the playback rate changed.
open class AVMetricPlayerItemRateChangeEvent: AVMetricEvent, @unchecked Sendable {
    /// The rate after the change.
    public let rate: Double
    /// The rate before it.
    public let previousRate: Double

    init(date: Date, rate: Double, previousRate: Double) {
        self.rate = rate
        self.previousRate = previousRate
        super.init(date: date)
    }
}

/// Stand-in for `AVMetricPlayerItemStallEvent`: playback stalled (a rate change to 0).
open class AVMetricPlayerItemStallEvent: AVMetricPlayerItemRateChangeEvent, @unchecked Sendable {}

/// Stand-in for `AVMetricPlayerItemLikelyToKeepUpEvent`: playback became likely to play on without
/// stalling, after the start or a stall.
open class AVMetricPlayerItemLikelyToKeepUpEvent: AVMetricEvent, @unchecked Sendable {
    /// The time it took to get there (`timeTaken`).
    public let timeTaken: TimeInterval

    init(date: Date, timeTaken: TimeInterval) {
        self.timeTaken = timeTaken
        super.init(date: date)
    }
}

/// Stand-in for `AVMetricPlayerItemInitialLikelyToKeepUpEvent`: the first time playback was likely to keep
/// up, the start.
open class AVMetricPlayerItemInitialLikelyToKeepUpEvent: AVMetricPlayerItemLikelyToKeepUpEvent, @unchecked Sendable {}

/// Stand-in for `AVMetricPlayerItemPlaybackSummaryEvent`: the whole playback session's figures.
open class AVMetricPlayerItemPlaybackSummaryEvent: AVMetricEvent, @unchecked Sendable {
    /// The stalls (`stallCount`).
    public let stallCount: Int
    /// Seconds played (`playbackDuration`, an `NSInteger`).
    public let playbackDuration: Int
    /// The time spent recovering from stalls (`timeSpentRecoveringFromStall`).
    public let timeSpentRecoveringFromStall: TimeInterval
    /// The time spent in the initial startup (`timeSpentInInitialStartup`).
    public let timeSpentInInitialStartup: TimeInterval

    init(
        date: Date, stallCount: Int, playbackDuration: Int, timeSpentRecoveringFromStall: TimeInterval,
        timeSpentInInitialStartup: TimeInterval
    ) {
        self.stallCount = stallCount
        self.playbackDuration = playbackDuration
        self.timeSpentRecoveringFromStall = timeSpentRecoveringFromStall
        self.timeSpentInInitialStartup = timeSpentInInitialStartup
        super.init(date: date)
    }
}
#endif
