import Foundation

/// The one place that decides when bytes no player waits for are fetched: the driver of a `TransferSchedule`.
///
/// Every fetch ahead of playback (a prefetch, a feed's preloads, downloads and pins, the proxy's HLS read-ahead)
/// comes here as a subscriber to a span of a resource (`fetch`), with its purpose and the device conditions it
/// runs under. The schedule decides; this performs what it returns and nothing else: it runs each job in a
/// task of its own (`TransferRun`, which reads the job's missing bytes through the cache at prefetch priority),
/// cancels jobs, tells subscribers how their job ended, and watches the playback gate and each group's
/// conditions while the schedule needs them watched. A subscriber that is cancelled leaves; a job whose last
/// subscriber leaves stops. The schedule is changed only under the lock, and tasks are cancelled and
/// subscribers told outside it (a cancellation runs handlers that take entries' locks).
package final class TransferScheduler: Sendable {
    /// One subscriber's wait for its job.
    private struct Waiter {
        let continuation: CheckedContinuation<Range<Int64>, any Error>
        let progress: @Sendable (_ stored: Int64, _ total: Int64) -> Void
        let waiting: @Sendable ([TransferBlocker]) -> Void
    }

    /// What a job reads: the resource of its first subscriber, through that subscriber's cache.
    private struct JobWork {
        let resource: Resource
        let cache: SpoolCache
    }

    private struct State {
        var schedule: TransferSchedule
        var waiters: [Int: Waiter] = [:]
        var work: [Int: JobWork] = [:]
        var runs: [Int: Task<Void, Never>] = [:]
        var results: [Int: Result<Range<Int64>, any Error>] = [:]
        var groups: [Int: TransferConditions] = [:]
        var lastGroup = 0
        var watchers: [Int: Task<Void, Never>] = [:]
        var started: [Start] = []
        /// Tests waiting for the schedule to reach a state (`until`).
        var observers = StateWaiters<Observed>()

        var observed: Observed {
            Observed(jobs: schedule.jobs.count, heldHosts: Set(schedule.heldHosts.keys))
        }
    }

    /// What the driver does outside the lock after a change.
    private struct Effects {
        var cancelled: [Task<Void, Never>] = []
        var calls: [@Sendable () -> Void] = []
    }

    /// How many jobs run at once, and the bytes all preloads may hold ahead of their players.
    let limits: TransferLimits
    private let state: LockedBox<State>
    private let gate: PlaybackGate
    private let directory: URL
    private let clock: any SpoolClock
    /// The jobs remembered in `started`.
    private static let startLogCapacity = 256

    init(gate: PlaybackGate, directory: URL, clock: any SpoolClock, limits: TransferLimits = TransferLimits()) {
        self.gate = gate
        self.directory = directory
        self.clock = clock
        self.limits = limits
        state = LockedBox(State(schedule: TransferSchedule(limits: limits)), rank: .transfers)
    }

    /// Stores `span` of `resource` in `cache` for `purpose`, when the schedule lets it run and only while
    /// `conditions` (if any) allow it and `budget` (if any) is not spent; returns the span's bytes, all stored. `progress` hears how many of them
    /// are stored as the job goes on, `waiting` what the job waits for. Cancelling the calling task leaves the
    /// job (which stops if nobody else wants it).
    func fetch(
        _ resource: Resource, span: TransferSpan, purpose: TransferPurpose, conditions: TransferConditions?,
        budget: TransferBudgetClaim? = nil, in cache: SpoolCache,
        progress: @escaping @Sendable (_ stored: Int64, _ total: Int64) -> Void = { _, _ in },
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> Range<Int64> {
        let registration = LockedBox<(subscriber: Int?, cancelled: Bool)>((nil, false))
        let key = cache.key(for: resource)
        let host = resource.url.host ?? ""
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let subscriber = apply { state in
                    let group = conditions.map { Self.group(for: $0, in: &state) }
                    let (subscriber, actions) = state.schedule.submit(
                        key: key, host: host, span: span, purpose: purpose, group: group, budget: budget)
                    state.waiters[subscriber] = Waiter(
                        continuation: continuation, progress: progress, waiting: waiting)
                    let job = state.schedule.subscribers[subscriber]!.job
                    if state.work[job] == nil { state.work[job] = JobWork(resource: resource, cache: cache) }
                    return (subscriber, actions)
                }
                let cancelled = registration.withLock { registration in
                    registration.subscriber = subscriber
                    return registration.cancelled
                }
                if cancelled { leave(subscriber) }
            }
        } onCancel: {
            let subscriber = registration.withLock { registration in
                registration.cancelled = true
                return registration.subscriber
            }
            if let subscriber { leave(subscriber) }
        }
    }

    /// The jobs in the schedule now: for tests that check every job is gone once its subscribers left.
    package var jobCount: Int {
        state.withLock { $0.schedule.jobs.count }
    }

    /// The hosts held back now: their origin said to come back later.
    package var heldHosts: Set<String> {
        state.withLock { Set($0.schedule.heldHosts.keys) }
    }

    /// The jobs started so far (the latest `startLogCapacity`), in order: for tests of the order.
    package var started: [Start] {
        state.withLock { $0.started }
    }

    /// Returns once no job runs (those stopping included): for tests that look at what was stored.
    package func settled() async {
        for _ in 0..<1000 {
            let runs = state.withLock { Array($0.runs.values) }
            guard !runs.isEmpty else { return }
            for run in runs { await run.value }
        }
    }

    // MARK: Driving the schedule

    /// The subscriber leaves: its wait ends with `CancellationError`.
    private func leave(_ subscriber: Int) {
        let waiter: Waiter? = apply { state in
            let waiter = state.waiters.removeValue(forKey: subscriber)
            let actions = state.schedule.leave(subscriber)
            // A queued job nobody wants is gone from the schedule at once; one that runs goes when it has ended.
            state.work = state.work.filter { state.schedule.jobs[$0.key] != nil }
            return (waiter, actions)
        }
        waiter?.continuation.resume(throwing: CancellationError())
    }

    /// Changes the schedule under the lock, after telling it whether playback needs the link now, and
    /// performs what it returns.
    private func apply<T>(
        _ change: (inout State) -> (T, [TransferSchedule.Action])
    ) -> T {
        let needsLink = gate.isPlaybackActive
        var effects = Effects()
        let result = state.withLock { state in
            let before = state.schedule.playback(needsLink: needsLink)
            let (result, actions) = change(&state)
            for action in before + actions { perform(action, in: &state, effects: &effects) }
            if !state.observers.isEmpty {
                let now = state.observed
                for observer in state.observers.satisfied(by: now) { effects.calls.append { observer.resume() } }
            }
            return result
        }
        for task in effects.cancelled { task.cancel() }
        for call in effects.calls { call() }
        return result
    }

    /// Changes the schedule under the lock and performs what it returns: for events without a result.
    func change(_ change: (inout TransferSchedule) -> [TransferSchedule.Action]) {
        apply { state in ((), change(&state.schedule)) }
    }

    private func perform(_ action: TransferSchedule.Action, in state: inout State, effects: inout Effects) {
        switch action {
        case .start(let id):
            guard let job = state.schedule.jobs[id], let work = state.work[id] else { return }
            state.started.append(
                Start(
                    purpose: job.purpose, key: job.key, span: job.span,
                    earliestWaiting: state.schedule.earliestWaitingPurpose))
            if state.started.count > Self.startLogCapacity { state.started.removeFirst() }
            let reserves = job.subscribers.compactMap { state.schedule.subscribers[$0]?.group }
                .compactMap { group in state.groups[group].map { (group, $0) } }
            // A subscriber without conditions may fill the disk: only a job all of whose subscribers keep a
            // reserve looks at the free space.
            let checks = reserves.count == job.subscribers.count ? reserves : []
            state.runs[id] = Task { await self.run(id, job: job, work: work, diskChecks: checks) }
        case .suspend(let id), .cancel(let id):
            if let run = state.runs[id] { effects.cancelled.append(run) }
        case .finish(let id, let subscribers):
            let result = state.results.removeValue(forKey: id) ?? .failure(CancellationError())
            for subscriber in subscribers {
                guard let waiter = state.waiters.removeValue(forKey: subscriber) else { continue }
                effects.calls.append { waiter.continuation.resume(with: result) }
            }
        case .waiting(let subscriber, let blockers):
            if let waiter = state.waiters[subscriber] { effects.calls.append { waiter.waiting(blockers) } }
        case .watchPlayback:
            let gate = gate
            // Ends itself once playback stops needing the link; the schedule then starts what waits.
            _ = Task {
                await gate.waitForPlayback()
                self.change { $0.playbackWatchEnded() }
            }
        case .releaseHost(let host, let hold, let seconds):
            let clock = clock
            _ = Task {
                try? await clock.sleep(until: clock.uptime + seconds)
                self.change { $0.releaseHost(host, hold: hold) }
            }
        case .retryLater(let id, let seconds):
            let clock = clock
            _ = Task {
                try? await clock.sleep(until: clock.uptime + seconds)
                self.change { $0.retry(id) }
            }
        case .watchConditions(let group):
            guard let conditions = state.groups[group] else { return }
            let directory = directory
            state.watchers[group] = Task {
                await conditions.watch(directory: directory) { blockers in
                    self.change { $0.conditions(group: group, blockers: blockers) }
                }
            }
        case .stopWatchingConditions(let group):
            state.groups[group] = nil
            if let watcher = state.watchers.removeValue(forKey: group) { effects.cancelled.append(watcher) }
        }
    }

    /// The group of `conditions`: an existing one for the same source and rules, else a new one.
    private static func group(for conditions: TransferConditions, in state: inout State) -> Int {
        if let (id, _) = state.groups.first(where: { $0.value.isSameGroup(as: conditions) }) { return id }
        state.lastGroup += 1
        state.groups[state.lastGroup] = conditions
        return state.lastGroup
    }

    /// Runs job `id`, then tells the schedule it ended.
    private func run(
        _ id: Int, job: TransferSchedule.Job, work: JobWork, diskChecks: [(group: Int, conditions: TransferConditions)]
    ) async {
        let directory = directory
        var checkDisk: (@Sendable () async -> Void)?
        if !diskChecks.isEmpty, diskChecks.contains(where: { $0.conditions.rules.diskReserveBytes > 0 }) {
            checkDisk = { @Sendable [weak self] in
                for (group, conditions) in diskChecks where conditions.rules.diskReserveBytes > 0 {
                    let blockers = await conditions.blockers(directory: directory)
                    guard blockers.contains(.lowDiskSpace) else { continue }
                    self?.change { $0.conditions(group: group, blockers: blockers) }
                }
            }
        }
        let run = TransferRun(
            resource: work.resource, span: job.span, purpose: job.purpose, cache: work.cache,
            progress: { [weak self] stored, total in self?.report(id, stored: stored, total: total) },
            checkDisk: checkDisk)
        let result = await run.run()
        apply { state in
            state.runs[id] = nil
            let actions: [TransferSchedule.Action]
            switch result {
            case .failure(let error) where RetryAfter(error) != nil:
                // The origin said to come back later: the job waits in the queue, and its host is left alone.
                let asked = RetryAfter(error)?.seconds ?? TransferSchedule.holdWithoutRetryAfter
                actions = state.schedule.backOff(id, for: min(max(0, asked), TransferSchedule.longestHold))
            case .failure(SpoolError.network), .failure(SpoolError.timedOut):
                actions = state.schedule.unreachable(id)
            default:
                actions = state.schedule.ended(id)
            }
            if state.schedule.jobs[id] == nil {
                state.work[id] = nil
                // Taken by the `.finish` among the actions, if any.
                if actions.contains(where: { if case .finish = $0 { true } else { false } }) {
                    state.results[id] = result
                }
            }
            return ((), actions)
        }
    }

    /// Returns once the schedule satisfies `condition` (at once if it does): for tests, which wait for a host
    /// to be held back or the jobs to be gone instead of looking again and again.
    package func until(_ condition: @escaping @Sendable (Observed) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if state.withLock({ $0.observers.wait(for: condition, continuation, now: $0.observed) }) {
                continuation.resume()
            }
        }
    }

    /// Tells the job's subscribers how far it has come.
    private func report(_ id: Int, stored: Int64, total: Int64) {
        let listeners = state.withLock { state in
            (state.schedule.jobs[id]?.subscribers ?? []).compactMap { state.waiters[$0]?.progress }
        }
        for listener in listeners { listener(stored, total) }
    }
}
