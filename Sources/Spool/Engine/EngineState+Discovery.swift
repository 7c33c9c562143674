/// Finding a resource's content information while it is unknown: the first request (its size), what follows
/// its failure, and who waits for the outcome. One discovery runs at a time; each is a round, and a caller waits
/// for the outcome of the round running when it came.
extension EngineState {
    /// Where the content information is asked from, and how the tries so far went.
    struct Discovery: Sendable, Equatable {
        /// Where the first reader starts, and where it stops (`nil`: to the end).
        let offset: Int64
        let end: Int64?
        let extent: ReadExtent
        /// How many tries failed in a row since the first was sent, at `began` (monotonic seconds).
        var retries: RetryBudget
        /// Where the last try's request stops running unless a reader joins it (`Fetch.unjoinedEnd`); `nil`:
        /// at its end.
        var unjoinedEnd: Int64?

        init(offset: Int64, end: Int64?, extent: ReadExtent, began: Double) {
            self.offset = offset
            self.end = end
            self.extent = extent
            retries = RetryBudget(startedAt: began)
        }
    }

    /// The discovery running, the rounds started, and how the last failed one ended.
    struct DiscoveryProgress {
        var running: Discovery?
        /// Counts the discoveries started.
        var round = 0
        /// How the last discovery that failed ended, and its round.
        var failure: (round: Int, error: any Error)?
    }

    /// What a try of the running discovery does next.
    enum DiscoveryTry: Equatable {
        /// Send a first range request for these bytes: its response brings the content information, and its
        /// body is kept as any request's is (`openDiscovered`).
        case send(Range<Int64>)
        /// Ask the origin's own call for the content information (`originDescribed`).
        case askOrigin
        /// Nothing: another try runs in a task of its own (`EngineAction.startDiscovery`), or the discovery
        /// ended (`EngineAction.discoveryEnded`).
        case done
    }

    /// Starts a discovery for a first reader as `wanted` describes it, unless the content information is
    /// known or a discovery runs; returns whether one started (its first try is an action).
    @discardableResult
    mutating func beginDiscovery(_ wanted: Discovery) -> Bool {
        guard info == nil, discovery.running == nil else { return false }
        discovery.running = wanted
        discovery.round += 1
        emit(.startDiscovery(after: 0))
        return true
    }

    /// What the running discovery's next try does, over a link to the origin as `link` describes it:
    /// `firstRequestSize` is the first request's size for a host nothing is known of
    /// (`FetchPolicy.firstRequestSize(for:)`); an origin that cannot read before the content information is
    /// known (`originReadsFirst` false) is asked for it.
    mutating func discoveryRequest(link: LinkEstimate, firstRequestSize: Int64, originReadsFirst: Bool)
        -> DiscoveryTry
    {
        guard let wanted = discovery.running else {
            endDiscovery(failure: CancellationError())
            return .done
        }
        guard originReadsFirst else { return .askOrigin }
        let start = max(0, wanted.offset)
        // Until its head arrives nothing else can be asked for: it carries a window and a piece (what the
        // link carries until the requests sent on its head deliver), or a first request's size for a host
        // nothing is known of.
        let ahead = policy.readAhead(afterConsuming: 0, link: link)
        // Over a multiplexed link a read's first piece is a first request's size, but a resource's first read
        // is often a player's probe of its header: ffmpeg leaves it for a `moov` at the end, and the request,
        // kept for its return, would share the link with the tail's. It asks for a window and a smallest
        // piece, as elsewhere.
        let piece = link.multiplexed ? policy.smallestPiece(link) : ahead.piece
        var size = link.roundTrip == nil ? firstRequestSize : ahead.window + piece
        if wanted.extent == .whole { size = FetchPolicy.wholeRequestLimit }
        var unjoinedEnd: Int64?
        if link.pausesWhileUnread, wanted.extent != .whole {
            // Its body stops while unread: it asks for the read's rest as a player would, and runs past what it
            // would have asked for only once a reader joins it (`Fetch.unjoinedEnd`).
            unjoinedEnd = start + size
            size = FetchPolicy.wholeRequestLimit
        }
        if let end = wanted.end, end > start {
            // A bounded read no larger than a first request is asked for whole: it is wanted whole, and a
            // second request for its rest (on loopback, a 64 KiB range in two) costs more than its bytes.
            size = end - start <= policy.firstRequestSize ? end - start : min(size, end - start)
        }
        discovery.running?.unjoinedEnd = unjoinedEnd.map { min($0, start + size) }
        return .send(start..<(start + size))
    }

    /// Decides what follows a failed try of the running discovery at `now`: the origin's own call where a
    /// range request cannot tell (past the end, an answer without a length), another try while the policy
    /// retries (`FetchPolicy.retries`), or the end, recorded for the round's waiters.
    mutating func discoveryFailed(_ error: any Error, at now: Double) -> DiscoveryTry {
        guard var wanted = discovery.running else {
            endDiscovery(failure: error)
            return .done
        }
        switch error {
        case SpoolError.rangeNotSatisfiable, SpoolError.invalidResponse: return .askOrigin
        default: break
        }
        // A discovery's try that failed delivered nothing: bytes that come belong to the request it opens.
        guard let wait = wanted.retries.failed(error, progressed: false, at: now, policy: policy) else {
            endDiscovery(failure: error)
            return .done
        }
        discovery.running = wanted
        emit(.startDiscovery(after: wait))
        return .done
    }

    /// The origin's own call answered (`.askOrigin`): takes in `described` and ends the discovery. Returns
    /// whether the content information changed (the record lags behind).
    @discardableResult
    mutating func originDescribed(_ described: ContentInfo) -> Bool {
        endDiscovery(failure: nil)
        return learn(described)
    }

    /// The discovery's task ends, and with it the running discovery, with `failure` (the origin's own call
    /// failed, or its try was cancelled before it was sent), for the round's waiters.
    mutating func endDiscovery(failure: (any Error)?) {
        emit(.discoveryEnded)
        guard discovery.running != nil else { return }
        discovery.running = nil
        if let failure { discovery.failure = (discovery.round, failure) }
    }

    /// The outcome for a caller that came during round `round` (or before any), once there is one: the content
    /// information, or how that round or a later one failed.
    func discoveryOutcome(since round: Int) -> Result<ContentInfo, any Error>? {
        if let info { return .success(info) }
        if let failure = discovery.failure, failure.round >= round { return .failure(failure.error) }
        return nil
    }
}
