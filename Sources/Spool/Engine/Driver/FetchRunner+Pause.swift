import Foundation

/// Requests that stop taking their body for a while: those only reads ahead of playback wait for, while
/// playback needs the link; those far enough ahead of their readers; and those a player abandoned, until a read
/// joins them or their grace ends.
extension FetchRunner {
    /// Holds request `id`'s body back while the state says so (`EngineState.hold`); returns `false` when the
    /// request was abandoned past its grace and has ended: the chunk in hand is the last it stores.
    ///
    /// With `pausing` (the transport stops reading the socket while its body is not taken, as
    /// AsyncHTTPClient does), not taking the body makes TCP hand the link to others, and nothing received is
    /// lost, as it would be if the request were cancelled and sent again. Without it the body keeps arriving
    /// into memory whatever this does, so nothing is held back: an abandoned request stores what comes until
    /// its grace ends. Not a stall: the request's `StallWatch` is disarmed meanwhile.
    ///
    /// Nothing polls: a held request waits for what can end its hold (a read joining it or its readers
    /// changing, a playback wait ending, or the moment the state named) and asks the state again.
    ///
    /// `readAheadLimit` is how far it may store ahead of its readers (`FetchPolicy.readAheadOfReaders`; `nil`:
    /// as far as it goes); `multiplexed` says it shares its connection (HTTP/2), where an abandoned request
    /// ends at once.
    func holdBack(fetch id: Int, pausing: Bool, readAheadLimit: Int64?, multiplexed: Bool, watch: StallWatch) async
        -> Bool
    {
        let (gate, link, url, clock) = (
            context.environment.gate, context.environment.link, context.url, environment.clock
        )
        let heldSince = clock.uptime
        var paused = false
        // The link's rate samples leave the pause out; the silence starts again when the body does.
        defer {
            if paused {
                link.bodyResumed(url, at: clock.uptime)
                watch.arm()
            }
        }
        while !Task.isCancelled {
            let now = clock.uptime
            let (playbackNeed, gateSeen) = gate.need()
            let (hold, entrySeen) = perform { entry in
                (
                    entry.state.hold(
                        fetch: id, heldSince: heldSince, playbackNeed: playbackNeed, at: now,
                        readAheadLimit: readAheadLimit, multiplexed: multiplexed),
                    entry.holdWakeups
                )
            }
            let until: TimeInterval
            switch hold {
            case .none: return true
            case .expired: return false
            case .abandoned(let end), .forPlayback(let end), .aheadOfReaders(let end): until = end
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
    /// `entrySeen` (`EntryContext.wakeHolds`), the clock reaching `until` (`environment.clock.uptime`'s time base), or
    /// cancellation.
    private func waitForHoldChange(fetch id: Int, gateSeen: UInt64, entrySeen: UInt64, until: TimeInterval) async {
        let (gate, context, clock) = (context.environment.gate, context, context.environment.clock)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: until) }
            group.addTask { await gate.waitForChange(since: gateSeen) }
            group.addTask { await context.suspend(id: id, in: \.holdWaiters) { $0.holdWakeups != entrySeen } }
            await group.next()
            group.cancelAll()
        }
    }
}
