import Foundation

/// Lets prefetching give way to playback across a whole cache: while a playback read waits for origin bytes,
/// and for a short quiet period after (a streaming read waits again every few milliseconds), prefetch reads
/// start no origin request.
final class PlaybackGate: Sendable {
    private struct State {
        var waitingPlayback = 0
        var lastPlaybackWait = Date.distantPast
        /// Callers of `untilPlaybackWaits`, by id.
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWatcher = 0
    }

    private let state = LockedBox(State())
    private let quietPeriod: TimeInterval

    init(quietPeriod: TimeInterval = 0.25) {
        self.quietPeriod = quietPeriod
    }

    /// A playback read starts waiting for origin bytes.
    func playbackWaits() {
        let watchers = state.withLock { state in
            state.waitingPlayback += 1
            defer { state.watchers = [:] }
            return state.watchers.values
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Returns as soon as a playback read waits for origin bytes (at once if one does), or on cancellation:
    /// for a read ahead of playback that gives its share of the link back then.
    func untilPlaybackWaits() async {
        let id = state.withLock { state in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.waitingPlayback > 0 || Task.isCancelled { return true }
                    state.watchers[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.resume()
        }
    }

    /// A playback read got its bytes (or gave up).
    func playbackResumed() {
        state.withLock { state in
            state.waitingPlayback -= 1
            state.lastPlaybackWait = Date()
        }
    }

    /// Returns once no playback read has waited for origin bytes for the quiet period, or on cancellation.
    func waitForPlayback() async {
        while !Task.isCancelled {
            let remaining = state.withLock { state -> TimeInterval in
                if state.waitingPlayback > 0 { return quietPeriod }
                return quietPeriod - Date().timeIntervalSince(state.lastPlaybackWait)
            }
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
