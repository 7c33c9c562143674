#if os(Linux)
import Foundation

/// What a simulated player reports of its playback through its item, as AVPlayer does: the item's access log
/// (startup time, stalls, time watched), its notifications, and its metric events (iOS 18's `AVMetrics`: the
/// start, each stall and recovery, and a summary when the session ends), from a `PlaybackModel` fed the
/// bytes received.
/// `@unchecked Sendable`: the model is in a `Locked`, the item is only written through its own lock, and
/// notifications are posted on a queue of its own, as AVFoundation posts them on a thread of its own.
final class PlaybackItemLog: @unchecked Sendable {
    private let item: AVPlayerItem
    private let model: Locked<(model: PlaybackModel, bytes: Int64)>
    private let queue = DispatchQueue(label: "AVFoundationStandIn.playback")

    /// A log of `item`'s playback as `playback` plays a resource of `resourceLength` bytes from now; `nil`
    /// without either (the player reports nothing).
    init?(item: AVPlayerItem?, playback: SimulatedPlayback?, resourceLength: Int64) {
        guard let item, let playback else { return nil }
        self.item = item
        model = Locked(
            (PlaybackModel(playback: playback, resourceLength: resourceLength, startedAt: monotonicSeconds()), 0))
    }

    /// The player has received `total` bytes by `now`.
    func received(total: Int64, at now: TimeInterval) {
        let events = model.withLock { state -> [PlaybackModel.Event] in
            state.bytes = total
            return state.model.received(total: total, at: now)
        }
        write(at: now)
        let box = UncheckedBox(value: item)
        for event in events {
            let name: Notification.Name?
            let metric: AVMetricEvent
            switch event {
            case .ready(let at):
                name = AVPlayerItem.newAccessLogEntryNotification
                let startedAt = model.withLock { $0.model.startedAt }
                metric = AVMetricPlayerItemInitialLikelyToKeepUpEvent(date: Self.date(at), timeTaken: at - startedAt)
            case .stalled(let at):
                name = AVPlayerItem.playbackStalledNotification
                metric = AVMetricPlayerItemStallEvent(date: Self.date(at), rate: 0, previousRate: 1)
            case .resumed(let at, let after):
                name = nil
                metric = AVMetricPlayerItemLikelyToKeepUpEvent(date: Self.date(at), timeTaken: after)
            }
            let metricEvents = item.metricEvents
            queue.async {
                if let name { NotificationCenter.default.post(name: name, object: box.value) }
                metricEvents.publish(metric)
            }
        }
    }

    /// The session ended (the simulated run is over): the access log's last figures, and the summary event, as
    /// AVFoundation publishes one when an item's playback session ends.
    func close(at now: TimeInterval) {
        write(at: now)
        let model = model.withLock { $0.model }
        guard let readyAt = model.readyAt else { return }
        let summary = AVMetricPlayerItemPlaybackSummaryEvent(
            date: Self.date(now), stallCount: model.stalls, playbackDuration: Int(model.watched(at: now)),
            timeSpentRecoveringFromStall: model.rebuffering, timeSpentInInitialStartup: readyAt - model.startedAt)
        let metricEvents = item.metricEvents
        queue.async { metricEvents.publish(summary) }
    }

    /// The date of monotonic time `time`.
    private static func date(_ time: TimeInterval) -> Date {
        Date(timeIntervalSinceNow: time - monotonicSeconds())
    }

    /// Writes the access log as the playback stands at `now` (nothing before the player was ready).
    func write(at now: TimeInterval) {
        let (model, bytes) = model.withLock { ($0.model, $0.bytes) }
        guard let readyAt = model.readyAt else { return }
        let event = AVPlayerItemAccessLogEvent(
            playbackStartDate: Date(timeIntervalSinceNow: readyAt - monotonicSeconds()),
            durationWatched: model.watched(at: now), numberOfStalls: model.stalls,
            startupTime: readyAt - model.startedAt, numberOfBytesTransferred: bytes)
        item.accessLogEvents.withLock { $0 = [event] }
    }
}
#endif
