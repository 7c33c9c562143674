/// Requests that stop taking their body for a while (`FetchRunner.holdBack`): those only reads ahead of
/// playback wait for, while playback needs the link, and those a player abandoned, until a read joins them or
/// their grace ends.
extension EngineState {
    /// The longest a request pauses for playback in one go; then it takes its share of the link again.
    static let maximumPause: Double = 60

    /// Why a request's body is held back, and until when at the latest (monotonic seconds): the driver waits
    /// until then, or until the playback gate or the entry's readers change, and asks again.
    enum Hold: Equatable {
        /// It goes on taking its body.
        case none
        /// Only reads ahead of playback wait for it, while playback needs the link.
        case forPlayback(until: Double)
        /// A player left it, and its grace (`FetchPolicy.abandonedRequestGrace`) is not over.
        case abandoned(until: Double)
        /// A player left it and no read joined within the grace: it has ended here, and the chunk in hand is
        /// the last it stores.
        case expired
    }

    /// Whether request `id`, held since `heldSince` (or just about to be), holds its body back at `now`, while
    /// playback elsewhere needs the link for `playbackNeed` more seconds (`PlaybackGate.need`; 0: it does
    /// not). An abandoned request whose grace is over ends here (`expireAbandoned`). A pause for playback
    /// lasts `maximumPause` at most; an abandoned request's hold lasts its grace, however long.
    mutating func hold(fetch id: Int, heldSince: Double, playbackNeed: Double, at now: Double) -> Hold {
        if let since = abandonedSince(fetch: id) {
            let end = since + policy.abandonedRequestGrace
            guard now >= end else { return .abandoned(until: end) }
            expireAbandoned(fetch: id, byItsOwnTask: true)
            return .expired
        }
        let pauseEnd = heldSince + Self.maximumPause
        guard playbackNeed > 0, now < pauseEnd, mayPause(fetch: id) else { return .none }
        return .forPlayback(until: min(now + playbackNeed, pauseEnd))
    }
}
