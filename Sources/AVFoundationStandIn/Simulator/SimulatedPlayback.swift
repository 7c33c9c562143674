#if os(Linux)
import Foundation

/// How a simulated player plays what it loads, so that it can report startup and stalls as AVPlayer does
/// (its item's access log and `playbackStalledNotification`): it plays the bytes it has received, in order,
/// at `bytesPerSecond`, once `startupBytes` are in; when the bytes run out it stalls, and resumes once
/// `resumeBytes` are buffered again (or the resource's last byte is in).
public struct SimulatedPlayback: Sendable, Equatable {
    /// The media's bit rate, in bytes per second of playback.
    public var bytesPerSecond: Double
    /// What the player buffers before it is ready to play.
    public var startupBytes: Int64
    /// What it buffers after a stall before it plays on.
    public var resumeBytes: Int64

    /// A playback at `bytesPerSecond` that starts after `startupBytes` and resumes after `resumeBytes`.
    public init(bytesPerSecond: Double, startupBytes: Int64, resumeBytes: Int64) {
        self.bytesPerSecond = bytesPerSecond
        self.startupBytes = startupBytes
        self.resumeBytes = resumeBytes
    }
}

/// The state of a `SimulatedPlayback` as bytes arrive: a state machine fed the bytes received so far and the
/// time, which returns what the player reports.
struct PlaybackModel {
    /// What the player reports, with when (monotonic seconds).
    enum Event: Equatable {
        /// Ready to play: the access log's first event appears.
        case ready(at: TimeInterval)
        /// The bytes ran out.
        case stalled(at: TimeInterval)
        /// Enough bytes are buffered again after a stall of `after` seconds.
        case resumed(at: TimeInterval, after: TimeInterval)
    }

    let playback: SimulatedPlayback
    let resourceLength: Int64
    let startedAt: TimeInterval
    private(set) var readyAt: TimeInterval?
    /// Bytes played, and bytes received, as of `lastUpdate`.
    private var playhead: Double = 0
    private var buffered: Int64 = 0
    private var lastUpdate: TimeInterval = 0
    private var stallStart: TimeInterval?
    private(set) var stalls = 0
    private(set) var rebuffering: TimeInterval = 0

    init(playback: SimulatedPlayback, resourceLength: Int64, startedAt: TimeInterval) {
        self.playback = playback
        self.resourceLength = resourceLength
        self.startedAt = startedAt
    }

    /// `total` bytes have been received by `now`.
    mutating func received(total: Int64, at now: TimeInterval) -> [Event] {
        guard readyAt != nil else {
            buffered = total
            guard total >= min(playback.startupBytes, resourceLength) else { return [] }
            (readyAt, lastUpdate) = (now, now)
            return [.ready(at: now)]
        }
        var events: [Event] = []
        if stallStart == nil {
            let played = playhead + (now - lastUpdate) * playback.bytesPerSecond
            if played >= Double(buffered), buffered < resourceLength {
                // The bytes ran out before these arrived: the stall began when the playhead reached them.
                let began = lastUpdate + (Double(buffered) - playhead) / playback.bytesPerSecond
                stallStart = began
                playhead = Double(buffered)
                stalls += 1
                events.append(.stalled(at: began))
            } else {
                playhead = min(played, Double(buffered))
            }
        }
        (buffered, lastUpdate) = (max(buffered, total), now)
        if let stallStart, buffered - Int64(playhead) >= playback.resumeBytes || buffered >= resourceLength {
            rebuffering += now - stallStart
            self.stallStart = nil
            events.append(.resumed(at: now, after: now - stallStart))
        }
        return events
    }

    /// Seconds played by `now`: the playhead moves on through what is buffered unless stalled.
    func watched(at now: TimeInterval) -> TimeInterval {
        guard readyAt != nil else { return 0 }
        let played =
            stallStart == nil
            ? min(Double(buffered), playhead + (now - lastUpdate) * playback.bytesPerSecond) : playhead
        return played / playback.bytesPerSecond
    }
}
#endif
