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
    /// its grace ends. Not a stall: the request's `StallWatch` is disarmed meanwhile.
    ///
    /// Nothing polls: a held request waits for what can end its hold (a read joining it or its readers
    /// changing, a playback wait ending, or the moment its grace, the playback's need or the longest pause
    /// runs out) and looks again.
    func holdBack(fetch id: Int, pausing: Bool, watch: StallWatch) async -> Bool {
        let (gate, link, url) = (core.environment.gate, core.environment.link, core.url)
        let grace = core.policy.abandonedRequestGrace
        let started = environment.clock.uptime
        var paused = false
        // The link's rate samples leave the pause out; the silence starts again when the body does.
        defer {
            if paused {
                link.bodyResumed(url, at: environment.clock.uptime)
                watch.arm()
            }
        }
        while !Task.isCancelled {
            let now = environment.clock.uptime
            let (playbackNeed, gateSeen) = gate.need()
            let playbackNeedsLink = playbackNeed > 0 && now - started < Self.maximumPause
            let (hold, entrySeen) = core.inner.withLock { inner -> (Hold, UInt64) in
                if let since = inner.state.abandonedSince(fetch: id) {
                    guard now - since >= grace else { return (.abandoned(until: since + grace), inner.holdChanges) }
                    inner.state.expireAbandoned(fetch: id)
                    return (.expired, inner.holdChanges)
                }
                let forPlayback = playbackNeedsLink && inner.state.mayPause(fetch: id)
                return (forPlayback ? .forPlayback(until: now + playbackNeed) : .none, inner.holdChanges)
            }
            let until: TimeInterval
            switch hold {
            case .none: return true
            case .expired: return false
            case .abandoned(let end), .forPlayback(let end): until = min(end, started + Self.maximumPause)
            }
            guard pausing else { return true }
            if !paused {
                paused = true
                link.bodyPaused(url, at: now)
                watch.disarm()
            }
            await waitForHoldChange(fetch: id, gateSeen: gateSeen, entrySeen: entrySeen, until: until)
        }
        return true
    }

    /// Returns at the first of: a playback wait ending after `gateSeen`, the entry's readers changing after
    /// `entrySeen` (`EntryCore.wakeHolds`), the clock reaching `until` (`environment.clock.uptime`'s time base), or
    /// cancellation.
    private func waitForHoldChange(fetch id: Int, gateSeen: UInt64, entrySeen: UInt64, until: TimeInterval) async {
        let (gate, core, clock) = (core.environment.gate, core, core.environment.clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: until) }
            group.addTask { await gate.waitForChange(since: gateSeen) }
            group.addTask { await core.suspend(id: id, in: \.holdWaiters) { $0.holdChanges != entrySeen } }
            await group.next()
            group.cancelAll()
        }
    }

    /// Why a request's body may be held back, and until when at the latest.
    private enum Hold {
        /// It goes on.
        case none
        /// Only reads ahead of playback wait for it, while playback needs the link.
        case forPlayback(until: TimeInterval)
        /// A player left it, and its grace is not over.
        case abandoned(until: TimeInterval)
        /// A player left it and no read joined within the grace: it ends.
        case expired
    }
}
