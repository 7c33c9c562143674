/// How many more tries a request gets, as a value: the failures in a row since bytes last arrived, and when
/// they last did. The engine's requests, a discovery and a read straight from the origin all count their
/// failures with one.
struct RetryBudget: Equatable, Sendable {
    /// Failures since the last one after which bytes arrived.
    private(set) var failuresInARow = 0
    /// When bytes last arrived, or the first try was sent (monotonic seconds).
    private(set) var lastProgress: Double

    init(startedAt: Double) {
        lastProgress = startedAt
    }

    /// Counts a try sent again from `now` on as its start: silence is counted from there until bytes come.
    mutating func restart(at now: Double) {
        lastProgress = now
    }

    /// Counts a failed try at `now`, `progressed` saying whether bytes arrived since the try before; returns
    /// the wait before the next try, or `nil` when `policy` gives up (`FetchPolicy.retries`): failures that say
    /// the link went silent (a stall, a timeout) are retried for `outageTolerance` since the last byte, others
    /// `retryLimit` times in a row without a byte.
    mutating func failed(_ error: any Error, progressed: Bool, at now: Double, policy: FetchPolicy) -> Double? {
        if progressed {
            failuresInARow = 1
            lastProgress = now
        } else {
            failuresInARow += 1
        }
        guard policy.retries(after: error, failuresInARow: failuresInARow, silentFor: now - lastProgress) else {
            return nil
        }
        let wait = policy.retryWait(attempt: failuresInARow)
        guard let asked = RetryAfter(error) else { return wait }
        // An origin that says when to come back is not asked before then; one that asks for longer than a
        // reader should wait is not asked again: the failure goes to the player, or to the transfer
        // scheduler, which holds the host back (`TransferSchedule.backOff`).
        let comeBack = asked.seconds ?? (asked.status == 429 ? policy.retryAfterWithoutField : wait)
        return comeBack <= policy.longestRetryAfter ? max(wait, comeBack) : nil
    }
}
