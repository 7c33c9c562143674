import Foundation

/// What an item's metric events (iOS 18's `AVMetrics`) have said of its playback so far: the start, the
/// stalls, and the time spent recovering from them, each stall from its event to the next sign that playback
/// goes on (likely to keep up again, or the rate back above 0). The session's summary event, when it comes,
/// replaces the tally with AVFoundation's own figures. A state fed events; `PlayerItemWatch` reads it.
struct PlayerMetricsTally: Sendable, Equatable {
    /// Seconds the item took to be first likely to keep up.
    private(set) var startup: TimeInterval?
    private(set) var stalls = 0
    /// The time spent in stalls that ended.
    private var recovered: TimeInterval = 0
    /// When the stall in progress began.
    private var stalledAt: Date?
    /// Whether the summary's figures are in: later events change nothing.
    private var summarized = false

    /// A stall event at `date`.
    mutating func stalled(at date: Date) {
        guard !summarized, stalledAt == nil else { return }
        stalls += 1
        stalledAt = date
    }

    /// Playback goes on at `date` (likely to keep up again, or a rate change to a positive rate).
    mutating func resumed(at date: Date) {
        guard !summarized, let began = stalledAt else { return }
        recovered += max(0, date.timeIntervalSince(began))
        stalledAt = nil
    }

    /// The first likely-to-keep-up event: the start took `timeTaken`.
    mutating func started(after timeTaken: TimeInterval) {
        if startup == nil, timeTaken >= 0 { startup = timeTaken }
    }

    /// The session's summary: AVFoundation's own count and time, which replace the tally's.
    mutating func summarized(stalls: Int, recovering: TimeInterval, startup: TimeInterval) {
        (self.stalls, recovered, stalledAt, summarized) = (max(0, stalls), max(0, recovering), nil, true)
        if startup > 0 { self.startup = startup }
    }

    /// The time spent stalled as of `now`: a stall in progress counts until now (a viewer who leaves during a
    /// stall waited that long).
    func rebuffering(at now: Date) -> TimeInterval {
        recovered + (stalledAt.map { max(0, now.timeIntervalSince($0)) } ?? 0)
    }
}
