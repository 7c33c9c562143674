import Foundation

/// Lets reads ahead of playback give way to it across a whole cache. Playback *needs the link* while a
/// playback read waits for its first origin bytes (a start or a seek: someone is looking at a spinner), while
/// playback reads spent more than half of the last second waiting for origin bytes (the link does not keep
/// up with them), and for `quietPeriod` after either. Meanwhile prefetch reads start no origin request, and
/// requests only they wait for pause.
///
/// A player that keeps up also waits now and then: its reads follow the requests that bring their bytes.
/// Counting every such wait starved preloads for as long as the current item streamed: on a 10 Mbit/s,
/// 100 ms link the next item of a 1.5 Mbit/s feed was never preloaded in time (its first frame came 1.9 ×
/// later than from a full cache), though the link had room for both.
final class PlaybackGate: Sendable {
    private struct State {
        /// Waits in progress: since when, and whether the read had delivered nothing yet.
        var waits: [Int: (since: TimeInterval, isStart: Bool)] = [:]
        var nextWait = 0
        /// Waits that ended within the last `window`, as start and end.
        var ended: [(start: TimeInterval, end: TimeInterval)] = []
        /// When playback last needed the link (system uptime).
        var lastNeed: TimeInterval = -.infinity
    }

    private let state = LockedBox(State())
    private let quietPeriod: TimeInterval
    /// How far back the share of time spent waiting is measured.
    private let window: TimeInterval = 1
    /// The share of `window` playback reads may wait before playback needs the link.
    private let busyShare = 0.5

    init(quietPeriod: TimeInterval = 0.25) {
        self.quietPeriod = quietPeriod
    }

    private static var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    /// A playback read starts waiting for origin bytes; `isStart` when it has delivered nothing yet. Returns
    /// the wait's token for `playbackResumed`.
    func playbackWaits(isStart: Bool) -> Int {
        let now = Self.now
        return state.withLock { state in
            state.nextWait += 1
            state.waits[state.nextWait] = (now, isStart)
            return state.nextWait
        }
    }

    /// The wait `token` ended: the read got its bytes (or gave up).
    func playbackResumed(_ token: Int) {
        let now = Self.now
        state.withLock { state in
            guard let wait = state.waits.removeValue(forKey: token) else { return }
            if wait.isStart { state.lastNeed = now }
            state.ended.removeAll { $0.end < now - window }
            // Bounded: many readers ending many short waits keep only the latest.
            if state.ended.count >= 1024 { state.ended.removeFirst(state.ended.count - 1023) }
            state.ended.append((wait.since, now))
        }
    }

    /// Whether playback needs the link now (see the type's documentation).
    var isPlaybackActive: Bool {
        remainingNeed() > 0
    }

    /// How much longer playback needs the link at least; 0 when it does not.
    private func remainingNeed() -> TimeInterval {
        let now = Self.now
        return state.withLock { state in
            let from = now - window
            var waited = 0.0
            for wait in state.waits.values {
                if wait.isStart { return quietPeriod }
                waited += now - max(wait.since, from)
            }
            for wait in state.ended where wait.end > from { waited += wait.end - max(wait.start, from) }
            if waited > busyShare * window { state.lastNeed = now }
            return max(0, quietPeriod - (now - state.lastNeed))
        }
    }

    /// Returns once playback does not need the link, or on cancellation.
    func waitForPlayback() async {
        while !Task.isCancelled {
            let remaining = remainingNeed()
            if remaining <= 0 { return }
            try? await Task.sleep(nanoseconds: UInt64(min(remaining, 0.05) * 1_000_000_000) + 1_000_000)
        }
    }
}

/// Whether a read is for playback (its bytes are awaited now) or ahead of it.
public enum ReadPriority: Sendable, Hashable {
    /// A player waits for these bytes.
    case playback
    /// Bytes wanted later (the next queue item's start); fetched when no playback read waits.
    case prefetch
}
