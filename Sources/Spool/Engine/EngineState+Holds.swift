/// Requests that stop taking their body for a while (`FetchRunner.holdBack`): those only reads ahead of
/// playback wait for, while playback needs the link; those far enough ahead of their readers; and those a player
/// abandoned, until a read joins them or their grace ends.
extension EngineState {
    /// The longest a request pauses for playback in one go; then it takes its share of the link again.
    static let maximumPause: Double = 60

    /// The longest a request is held ahead of its readers in one go (a paused player): then it ends, and a
    /// read that goes on later sends another. Origins close a connection idle for about a minute (nginx's
    /// `keepalive_timeout` 75 s, send timeouts of 60 s), and a held request's connection is idle.
    static let longestHoldAhead: Double = 20

    /// Why a request's body is held back, and until when at the latest (monotonic seconds): the driver waits
    /// until then, or until the playback gate or the entry's readers change, and asks again.
    enum Hold: Equatable {
        /// It goes on taking its body.
        case none
        /// Only reads ahead of playback wait for it, while playback needs the link.
        case forPlayback(until: Double)
        /// It has stored enough ahead of its farthest reader (`FetchPolicy.readAheadOfReaders`): it waits for
        /// a reader's delivery to come within half of that, as a player's own buffer does.
        case aheadOfReaders(until: Double)
        /// A player left it, and its grace (`FetchPolicy.abandonedRequestGrace`) is not over.
        case abandoned(until: Double)
        /// It has ended here (a player left it and no read joined within the grace; or it was held ahead of its
        /// readers for `longestHoldAhead`): the chunk in hand is the last it stores.
        case expired
    }

    /// Whether request `id`, held since `heldSince` (or just about to be), holds its body back at `now`, while
    /// playback elsewhere needs the link for `playbackNeed` more seconds (`PlaybackGate.need`; 0: it does
    /// not; infinite: until a player's wait ends).
    ///
    /// - An abandoned request whose grace is over ends here (`expireAbandoned`), and so does one while a player
    ///   waits elsewhere and none reads this resource (it would take the link the player waits on), and one on a
    ///   connection shared by several requests (`multiplexed`, HTTP/2) at once: an unread stream is not paused,
    ///   it takes its window (8 MiB with AsyncHTTPClient), and what the origin wrote of it meanwhile crosses the
    ///   link ahead of the next request's bytes, which a new stream gets a round trip later with no handshake.
    ///   Held for the grace, the rest of a seek's read delayed the next video's first frame over mobile HTTP/2
    ///   (ffmpeg, `spool bench run --link mobile --origin h2`, 5 runs): 1.08 and 1.07 s in two runs against
    ///   0.27–0.49 s; ended at once, 0.24–0.27 s in all five.
    /// - With `readAheadLimit` (the origin's bodies pause while unread), a request that stored that much beyond
    ///   its farthest reader waits for it, `longestHoldAhead` at most.
    /// - A pause for playback lasts `maximumPause` at most; an abandoned request's hold lasts its grace, however
    ///   long.
    mutating func hold(
        fetch id: Int, heldSince: Double, playbackNeed: Double, at now: Double, readAheadLimit: Int64? = nil,
        multiplexed: Bool = false
    ) -> Hold {
        outgrewItsFirstSize(fetch: id, at: now)
        if let since = abandonedSince(fetch: id) {
            let end = since + policy.abandonedRequestGrace
            let playerWaitsElsewhere = playbackNeed.isInfinite && !readers.values.contains { !$0.isPrefetch }
            guard now >= end || playerWaitsElsewhere || multiplexed else { return .abandoned(until: end) }
            expireAbandoned(fetch: id, byItsOwnTask: true)
            return .expired
        }
        if let readAheadLimit, isAheadOfReaders(fetch: id, limit: readAheadLimit) {
            let end = heldSince + Self.longestHoldAhead
            guard now >= end else { return .aheadOfReaders(until: end) }
            cancelUnneeded(id, endsByItself: true)
            return .expired
        }
        let pauseEnd = heldSince + Self.maximumPause
        guard playbackNeed > 0, now < pauseEnd, mayPause(fetch: id) else { return .none }
        return .forPlayback(until: min(now + playbackNeed, pauseEnd))
    }

    /// Whether request `id` is to wait for its readers: it has *stored* `limit` bytes beyond the farthest of
    /// them, none of whom reads all (a whole read takes what comes, never waits), and until a reader's delivery
    /// reaches `Fetch.resumesAt`. Stored, not received: a reader waiting for the rest of a block the writer
    /// holds would never reach bytes received beyond it, and the request would wait for its longest hold.
    private mutating func isAheadOfReaders(fetch id: Int, limit: Int64) -> Bool {
        guard let fetch = fetches[id], !fetch.interested.isEmpty else { return false }
        let waiting = fetch.interested.compactMap { readers[$0] }
        guard !waiting.contains(where: \.wantsAll) else { return false }
        let farthest = waiting.compactMap { $0.position ?? $0.start }.max() ?? fetch.position
        if let resumesAt = fetch.resumesAt {
            guard farthest < resumesAt else {
                fetches[id]!.resumesAt = nil
                return false
            }
            return true
        }
        guard fetch.position - farthest >= limit else { return false }
        fetches[id]!.resumesAt = fetch.position - limit / 2
        return true
    }

    /// A first request that asked for a read's rest (`Fetch.unjoinedEnd`) and that no reader joined stops
    /// outliving readers past that end, when more than a first request's size is left: it is abandoned as a
    /// player's request is, at `now`.
    /// With `anywhere`, wherever it is (nothing will join it: the engine closes).
    mutating func outgrewItsFirstSize(fetch id: Int, at now: Double, anywhere: Bool = false) {
        guard let fetch = fetches[id], fetch.outlivesReaders, fetch.interested.isEmpty,
            let unjoinedEnd = fetch.unjoinedEnd, anywhere || fetch.position >= unjoinedEnd,
            fetch.end - fetch.position > policy.firstRequestSize
        else { return }
        fetches[id]!.outlivesReaders = false
        fetches[id]!.abandonedAt = now
    }

    /// Whether a reader's delivery up to `offset` lets a request held ahead of it go on (see
    /// `Fetch.resumesAt`): its hold is to be woken.
    func releasesHold(reader id: Int, at offset: Int64) -> Bool {
        fetches.values.contains { fetch in
            fetch.interested.contains(id) && fetch.resumesAt.map { offset >= $0 } == true
        }
    }
}
