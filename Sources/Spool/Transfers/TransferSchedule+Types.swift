/// The jobs, subscribers and actions of a `TransferSchedule`.
extension TransferSchedule {
    /// How long a host is held back when its origin says to come back later without saying when (5 s), and
    /// at most, whatever it says (10 minutes).
    static let holdWithoutRetryAfter: Double = 5
    static let longestHold: Double = 600

    /// The most times one job goes back to the queue for its origin's "come back later" before its
    /// subscribers hear the failure.
    static let maximumBackOffs = 5

    /// The first wait before a download whose origin could not be reached tries again, and the longest: it
    /// doubles from one to the other.
    static let firstRetryWait: Double = 2
    static let longestRetryWait: Double = 300

    enum Phase: Sendable, Equatable {
        case queued
        case running
        /// Stopping to go back to the queue: its conditions forbid it now.
        case suspending
        /// Stopping for good: its last subscriber left.
        case cancelling
    }

    struct Job: Sendable, Equatable {
        let id: Int
        let key: String
        let host: String
        let span: TransferSpan
        var subscribers: Set<Int>
        var phase: Phase
        /// The earliest purpose among its subscribers.
        var purpose: TransferPurpose
        /// How often its origin told it to come back later (`backOff`).
        var backOffs = 0
        /// How often in a row its origin could not be reached (`unreachable`).
        var unreachable = 0
        /// Whether it waits for its next try after its origin could not be reached (`retry`).
        var waitsToRetry = false
    }

    struct Subscriber: Sendable, Equatable {
        let job: Int
        let purpose: TransferPurpose
        /// The conditions group it runs under; `nil`: none (it may run whatever the device's conditions).
        let group: Int?
        /// The byte budget it counts against, if any (`TransferSchedule+Budget`).
        var budget: TransferBudgetClaim? = nil
        /// Whether it heard that its job waits for a budget.
        var toldBudgetWait = false
    }

    enum Action: Sendable, Equatable {
        /// Run the job.
        case start(Int)
        /// Stop the job's run; it goes back to the queue once it has ended (`ended`).
        case suspend(Int)
        /// Stop the job's run: nobody wants it any more.
        case cancel(Int)
        /// Tell these subscribers how the job ended.
        case finish(Int, subscribers: [Int])
        /// Tell the subscriber what its job waits for.
        case waiting(subscriber: Int, [TransferBlocker])
        /// Start watching the playback gate: jobs wait for playback to stop needing the link.
        case watchPlayback
        /// Release the host's hold `hold` after these seconds (`releaseHost`).
        case releaseHost(String, hold: Int, after: Double)
        /// Try the job again after these seconds (`retry`).
        case retryLater(Int, after: Double)
        /// Start watching the device's conditions for the group.
        case watchConditions(Int)
        /// Stop watching them: the group has no subscriber left.
        case stopWatchingConditions(Int)
    }
}
