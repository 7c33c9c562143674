/// The one place the engine state's actions are carried out (`EngineAction`): every event the driver gives the
/// state goes through `perform`.
extension FetchRunner {
    /// Gives the state an event under the entry's lock (`event`), then carries out what it asked for: task
    /// starts, and forgetting the old version's bytes, under the same lock; cancellations (their handlers
    /// take entries' locks), the write queue's catching up, the record and wake-ups after it. Returns what
    /// `event` returns.
    @discardableResult
    func perform<Result>(_ event: (inout LockedEntry) throws -> Result) rethrows -> Result {
        let (result, after) = try locked.withLock { entry -> (Result, AfterLock) in
            // An action left from an event given outside `perform` would wait for the next event.
            assert(entry.state.actions.isEmpty, "an engine event was given outside perform")
            let result = try event(&entry)
            return (result, performLocked(in: &entry))
        }
        after.run(self)
        return result
    }

    /// Carries out, with the lock held, what the state asked for so far; returns what is left for after the
    /// lock (`AfterLock.run`). For an event given where the lock is already held (`ResourceEngine.open`).
    func performLocked(in entry: inout LockedEntry) -> AfterLock {
        var after = AfterLock()
        for action in entry.state.takeActions() {
            switch action {
            case .start(let id):
                startTry(id, after: 0, isRetry: false, in: &entry)
            case .retry(let id, let delay):
                startTry(id, after: delay, isRetry: true, in: &entry)
            case .cancel(let id):
                if let task = entry.tasks[id] { after.cancelled.append(task) }
            case .ended(let id):
                entry.tasks[id] = nil
                // What it received and did not store will not be: readers wait for another request.
                entry.arriving.drop(fetch: id)
                after.wakesReaders = true
                after.mayBeIdle = true
            case .startDiscovery(let delay):
                startDiscovery(after: delay, in: &entry)
            case .discoveryBecame(let id):
                // This task goes on as the new request's first try: cancelling the request cancels it.
                entry.tasks[id] = entry.discoveryTask
                entry.discoveryTask = nil
            case .discoveryEnded:
                entry.discoveryTask = nil
                after.wakesReaders = true
                after.mayBeIdle = true
            case .newVersion:
                VersionReset.begin(in: &entry)
                after.catchesUp = true
            case .clearDiscarded:
                after.catchesUp = true
            case .wakeReaders:
                after.wakesReaders = true
            case .wakeHolds:
                after.wakesHolds = true
            case .flushRecordSoon:
                after.flushesRecord = true
            }
        }
        after.idle = after.mayBeIdle && entry.isIdle
        return after
    }

    /// What the state's actions leave for after the entry's lock.
    struct AfterLock {
        var cancelled: [Task<Void, Never>] = []
        var catchesUp = false
        var flushesRecord = false
        var wakesReaders = false
        var wakesHolds = false
        var mayBeIdle = false
        var idle = false

        /// Carries it out, outside every lock.
        func run(_ runner: FetchRunner) {
            // The write queue resets the files for a new version, or clears discarded slots.
            if catchesUp { runner.writer.catchUp() }
            for task in cancelled { task.cancel() }
            if flushesRecord { runner.index.flushSoon() }
            if wakesReaders { runner.context.notifyReaders() }
            if wakesHolds { runner.context.wakeHolds() }
            if idle { runner.context.becameIdle() }
        }
    }
}
