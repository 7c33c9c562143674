import Foundation

/// Requests that stop taking their body for a while: those only reads ahead of playback wait for, while
/// playback needs the link, and those a player abandoned, until a read joins them or their grace ends.
extension FetchRunner {
    /// The longest a request pauses for playback in one go; then it takes its share of the link again.
    static let maximumPause: Double = 60

    /// Holds request `id`'s body back while it may wait (see `Hold`); returns `false` when the request was
    /// abandoned past its grace and has ended (`EngineState.expireAbandoned`): the chunk in hand is the
    /// last it stores.
    ///
    /// With `pausing` (the transport stops reading the socket while its body is not taken, as
    /// AsyncHTTPClient does), not taking the body makes TCP hand the link to others, and nothing received is
    /// lost, as it would be if the request were cancelled and sent again. Without it the body keeps arriving
    /// into memory whatever this does, so nothing is held back: an abandoned request stores what comes until
    /// its grace ends. Not a stall: the request's `StallWatch` is kept from firing.
    func holdBack(fetch id: Int, pausing: Bool, watch: StallWatch) async -> Bool {
        let (gate, link, url) = (core.environment.gate, core.environment.link, core.url)
        let grace = core.policy.abandonedRequestGrace
        let started = LinkMonitor.now
        var paused = false
        // The link's rate samples leave the pause out.
        defer { if paused { link.bodyResumed(url, at: LinkMonitor.now) } }
        while !Task.isCancelled {
            let playbackNeedsLink = gate.isPlaybackActive && LinkMonitor.now - started < Self.maximumPause
            let hold = core.inner.withLock { inner -> Hold in
                if let since = inner.state.abandonedSince(fetch: id) {
                    guard LinkMonitor.now - since >= grace else { return .abandoned }
                    inner.state.expireAbandoned(fetch: id)
                    return .expired
                }
                return playbackNeedsLink && inner.state.mayPause(fetch: id) ? .forPlayback : .none
            }
            switch hold {
            case .none: return true
            case .expired: return false
            case .abandoned, .forPlayback:
                guard pausing else { return true }
                if !paused {
                    paused = true
                    link.bodyPaused(url, at: LinkMonitor.now)
                }
                watch.touch()
                try? await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        return true
    }

    /// Why a request's body may be held back.
    private enum Hold {
        /// It goes on.
        case none
        /// Only reads ahead of playback wait for it, while playback needs the link.
        case forPlayback
        /// A player left it, and its grace is not over.
        case abandoned
        /// A player left it and no read joined within the grace: it ends.
        case expired
    }
}
