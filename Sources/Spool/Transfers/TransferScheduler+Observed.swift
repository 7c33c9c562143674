/// What tests see of the transfer scheduler: the jobs it started, in order, and the states they wait for.
extension TransferScheduler {
    /// A job that started, for tests that check the order (`started`).
    package struct Start: Sendable, Equatable {
        /// The job's purpose (its most urgent subscriber's).
        package let purpose: TransferPurpose
        /// Its resource's cache key.
        package let key: String
        /// Its bytes.
        package let span: TransferSpan
        /// The earliest purpose among the jobs left waiting when it started (`nil`: none waited).
        package let earliestWaiting: TransferPurpose?
    }

    /// What a test can wait for (`until`): the jobs in the schedule, the hosts held back.
    package struct Observed: Sendable {
        /// Jobs queued, running or stopping.
        package var jobs: Int
        /// Hosts whose origin said to come back later.
        package var heldHosts: Set<String>
    }
}
