/// Tests waiting for a type's locked state to reach a condition (the `until` of `PlaybackGate` and
/// `TransferScheduler`), kept in that state: whoever changes the state takes the satisfied ones under its lock
/// and resumes them after.
struct StateWaiters<Snapshot>: Sendable {
    private var waiting: [(condition: @Sendable (Snapshot) -> Bool, continuation: CheckedContinuation<Void, Never>)] =
        []

    /// Keeps `continuation` until `condition` holds, unless it holds for `now`: then returns `true`, and the
    /// caller resumes it.
    mutating func wait(
        for condition: @escaping @Sendable (Snapshot) -> Bool, _ continuation: CheckedContinuation<Void, Never>,
        now: Snapshot
    ) -> Bool {
        if condition(now) { return true }
        waiting.append((condition, continuation))
        return false
    }

    /// Whether nobody waits: then the state need not be looked at.
    var isEmpty: Bool { waiting.isEmpty }

    /// Takes the waiters whose condition holds for `now`, to resume outside the lock.
    mutating func satisfied(by now: Snapshot) -> [CheckedContinuation<Void, Never>] {
        let ready = waiting.filter { $0.condition(now) }.map(\.continuation)
        waiting.removeAll { $0.condition(now) }
        return ready
    }
}
