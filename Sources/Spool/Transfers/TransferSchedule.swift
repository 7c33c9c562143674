/// Decides when the transfers no player waits for run: a value that `TransferScheduler` alone changes,
/// returning what to do, so that every decision is tested without a byte moving.
///
/// Features (prefetch, preloads, downloads, pins, the proxy's read-ahead) say *what*: each subscribes to a
/// span of a resource, for a purpose, under the device conditions of its group (`TransferConditions`). One
/// job per span: a subscriber whose span lies within a job's joins it (when that job runs, or may run), and a
/// job whose last subscriber leaves is cancelled (what it stored stays). The schedule says *when*:
/// - nothing starts while playback needs the link (`PlaybackGate`); running jobs are then paused by the
///   engine, which stops reading their sockets;
/// - nothing starts while every subscriber's conditions forbid it, and a running job stops (`suspend`: back
///   to the queue, to go on from its first missing byte) when they come to;
/// - nothing starts against a host whose origin said to come back later (`Retry-After`) before then;
/// - jobs start by purpose (`TransferPurpose`), then in the order they were asked for, within `Limits`, of
///   which later purposes may take only a share: a place is left for the player's read-ahead and an app's
///   prefetch however many preloads and downloads wait, and for preloads however many downloads do. A job
///   that finds no place holds back every job of its purpose and later ones (on its host; everywhere when
///   the total is full): nothing overtakes it. A running job is never stopped for another (that would lose
///   the bytes in flight and cost a request again).
struct TransferSchedule: Sendable {
    typealias Limits = TransferLimits

    let limits: Limits
    private(set) var jobs: [Int: Job] = [:]
    private(set) var subscribers: [Int: Subscriber] = [:]
    /// What each group's conditions forbid: `nil` until its watcher first tells.
    private(set) var groups: [Int: [TransferBlocker]?] = [:]
    /// Whether playback needs the link now, as the driver last saw (it looks before every change).
    private(set) var playbackNeedsLink = false
    private(set) var watchingPlayback = false
    /// Hosts whose origin asked to be left alone for a while (`backOff`), by their latest hold.
    private(set) var heldHosts: [String: Int] = [:]
    /// Each preloader's byte budget and what it holds (`TransferSchedule+Budget`).
    var budgets: [Int: Budget] = [:]
    private var lastHold = 0
    private var lastJob = 0
    private var lastSubscriber = 0

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// A feature wants `span` of the resource `key` (on `host`) for `purpose`, under the conditions of `group`
    /// (`nil`: none). Returns the new subscriber and what to do.
    mutating func submit(
        key: String, host: String, span: TransferSpan, purpose: TransferPurpose, group: Int?,
        budget: TransferBudgetClaim? = nil
    ) -> (subscriber: Int, actions: [Action]) {
        var actions: [Action] = []
        if let group, groups[group] == nil {
            groups[group] = .some(nil)
            actions.append(.watchConditions(group))
        }
        lastSubscriber += 1
        let subscriber = lastSubscriber
        // A job that runs, or will as soon as it has a place. Not one its conditions hold back: a subscriber
        // they allow would make all of it run (a 16-byte look at a file starting the download of the file on a
        // network the download may not use).
        let joined = jobs.values.filter {
            $0.key == key && $0.span.contains(span)
                && ($0.phase == .running || ($0.phase == .queued && !$0.waitsToRetry && isAllowed($0)))
        }.min { $0.id < $1.id }
        let id: Int
        if var job = joined {
            id = job.id
            job.subscribers.insert(subscriber)
            job.purpose = min(job.purpose, purpose)
            jobs[id] = job
        } else {
            lastJob += 1
            id = lastJob
            jobs[id] = Job(
                id: id, key: key, host: host, span: span, subscribers: [subscriber], phase: .queued, purpose: purpose)
        }
        subscribers[subscriber] = Subscriber(job: id, purpose: purpose, group: group, budget: budget)
        if let group, case .some(.some(let blockers)) = groups[group], !blockers.isEmpty,
            jobs[id]?.phase != .running
        {
            actions.append(.waiting(subscriber: subscriber, blockers))
        }
        return (subscriber, actions + reconcile())
    }

    /// The subscriber left (it was cancelled, or has its answer): a job nobody wants any more stops.
    mutating func leave(_ subscriber: Int) -> [Action] {
        guard let leaving = subscribers.removeValue(forKey: subscriber) else { return [] }
        var actions: [Action] = []
        if var job = jobs[leaving.job] {
            job.subscribers.remove(subscriber)
            if job.subscribers.isEmpty {
                switch job.phase {
                case .queued:
                    jobs[job.id] = nil
                case .running, .suspending:
                    job.phase = .cancelling
                    jobs[job.id] = job
                    actions.append(.cancel(job.id))
                case .cancelling:
                    jobs[job.id] = job
                }
            } else {
                job.purpose = job.subscribers.compactMap { subscribers[$0]?.purpose }.min() ?? job.purpose
                jobs[job.id] = job
                // It ran for the one who left: the others' conditions may hold it back.
                if job.phase == .running, !isAllowed(job) {
                    jobs[job.id]?.phase = .suspending
                    actions.append(.suspend(job.id))
                }
            }
        }
        actions += forgetGroupIfUnused(leaving.group)
        return actions + reconcile()
    }

    /// The job's run ended: a suspended job with subscribers goes back to the queue; any other is done, and
    /// its subscribers are told.
    mutating func ended(_ id: Int) -> [Action] {
        guard var job = jobs[id] else { return reconcile() }
        if job.phase == .suspending, !job.subscribers.isEmpty {
            job.phase = .queued
            jobs[id] = job
            var actions: [Action] = []
            for subscriber in job.subscribers.sorted() {
                guard let group = subscribers[subscriber]?.group, case .some(.some(let blockers)) = groups[group],
                    !blockers.isEmpty
                else { continue }
                actions.append(.waiting(subscriber: subscriber, blockers))
            }
            return actions + reconcile()
        }
        jobs[id] = nil
        var actions: [Action] = []
        if !job.subscribers.isEmpty {
            let told = job.subscribers.sorted()
            actions.append(.finish(id, subscribers: told))
            for subscriber in told {
                let group = subscribers.removeValue(forKey: subscriber)?.group
                actions += forgetGroupIfUnused(group)
            }
        }
        return actions + reconcile()
    }

    /// The job's run ended with its origin saying to come back later (a `429` or `503`, `RetryAfter`): the
    /// job goes back to the queue and nothing starts against its host for `seconds`. A job nobody wants any
    /// more, or told so `maximumBackOffs` times, ends as any job does.
    mutating func backOff(_ id: Int, for seconds: Double) -> [Action] {
        guard var job = jobs[id], job.phase == .running, !job.subscribers.isEmpty,
            job.backOffs < Self.maximumBackOffs
        else { return ended(id) }
        job.backOffs += 1
        job.phase = .queued
        jobs[id] = job
        lastHold += 1
        heldHosts[job.host] = lastHold
        return [.releaseHost(job.host, hold: lastHold, after: seconds)] + reconcile()
    }

    /// The job's run ended because its origin could not be reached. A download waits and tries again (an
    /// offline-first app queues an album on the plane): after `firstRetryWait`, doubling up to
    /// `longestRetryWait`, or at once when its conditions see the network come back; its subscribers hear
    /// `originUnreachable`. Any other job ends, and its subscribers hear the failure.
    mutating func unreachable(_ id: Int) -> [Action] {
        guard var job = jobs[id], job.phase == .running, !job.subscribers.isEmpty, job.purpose == .download else {
            return ended(id)
        }
        job.unreachable += 1
        job.phase = .queued
        job.waitsToRetry = true
        jobs[id] = job
        var wait = Self.firstRetryWait
        for _ in 1..<min(job.unreachable, 16) { wait *= 2 }
        return [.retryLater(id, after: min(wait, Self.longestRetryWait))]
            + job.subscribers.sorted().map { .waiting(subscriber: $0, [.originUnreachable]) } + reconcile()
    }

    /// The wait of job `id` for its next try is over.
    mutating func retry(_ id: Int) -> [Action] {
        guard jobs[id]?.waitsToRetry == true else { return [] }
        jobs[id]?.waitsToRetry = false
        return reconcile()
    }

    /// The wait of the host's hold `hold` is over (a later hold keeps it held).
    mutating func releaseHost(_ host: String, hold: Int) -> [Action] {
        guard heldHosts[host] == hold else { return [] }
        heldHosts[host] = nil
        return reconcile()
    }

    /// Whether playback needs the link, as the driver sees it before each change.
    mutating func playback(needsLink: Bool) -> [Action] {
        playbackNeedsLink = needsLink
        return reconcile()
    }

    /// The playback watcher returned: playback stopped needing the link (the driver then says whether it needs
    /// it again, `playback(needsLink:)`).
    mutating func playbackWatchEnded() -> [Action] {
        watchingPlayback = false
        return reconcile()
    }

    /// The group's conditions now forbid `blockers` (empty: nothing). Running jobs that only the group's
    /// subscribers want stop when they forbid something; its waiting subscribers are told.
    mutating func conditions(group: Int, blockers: [TransferBlocker]) -> [Action] {
        guard let before = groups[group] else { return [] }
        groups[group] = .some(blockers)
        var actions: [Action] = []
        // The network came back: a download that could not reach its origin tries again now.
        if let old = before, old.contains(.noNetwork), !blockers.contains(.noNetwork) {
            let members = Set(subscribers.values.filter { $0.group == group }.map(\.job))
            for id in members where jobs[id]?.waitsToRetry == true { jobs[id]?.waitsToRetry = false }
        }
        if !blockers.isEmpty {
            for job in jobs.values.sorted(by: { $0.id < $1.id }) where job.phase == .running && !isAllowed(job) {
                jobs[job.id]?.phase = .suspending
                actions.append(.suspend(job.id))
            }
            if before != .some(blockers) {
                for (id, subscriber) in subscribers.sorted(by: { $0.key < $1.key }) where subscriber.group == group {
                    guard jobs[subscriber.job]?.phase != .running else { continue }
                    actions.append(.waiting(subscriber: id, blockers))
                }
            }
        }
        return actions + reconcile()
    }

    /// The earliest purpose among the jobs that wait to run and may (their conditions allow them, their host is
    /// not held back): no job of a later purpose starts while one waits. `nil` when none waits.
    var earliestWaitingPurpose: TransferPurpose? {
        jobs.values.filter {
            $0.phase == .queued && !$0.waitsToRetry && isAllowed($0) && heldHosts[$0.host] == nil
                && !isHeldByBudget($0)
        }.map(\.purpose).min()
    }

    /// Whether some subscriber of `job` may run now: one without conditions, or whose group's forbid nothing.
    private func isAllowed(_ job: Job) -> Bool {
        job.subscribers.contains { id in
            guard let group = subscribers[id]?.group else { return true }
            return groups[group] == .some(.some([]))
        }
    }

    private mutating func forgetGroupIfUnused(_ group: Int?) -> [Action] {
        guard let group, !subscribers.values.contains(where: { $0.group == group }) else { return [] }
        groups[group] = nil
        return [.stopWatchingConditions(group)]
    }

    /// Starts what may start: by purpose, then in the order asked, each within its purpose's share of the
    /// limits (`TransferLimits.places(for:of:)`), so that a place is always left for an earlier purpose
    /// without stopping a running job (which would lose the bytes in flight and cost a request again).
    mutating func reconcile() -> [Action] {
        let waiting = jobs.values.filter { $0.phase == .queued && !$0.waitsToRetry && isAllowed($0) }
            .sorted { ($0.purpose, $0.id) < ($1.purpose, $1.id) }
        guard !waiting.isEmpty else { return [] }
        guard !playbackNeedsLink else {
            guard !watchingPlayback else { return [] }
            watchingPlayback = true
            return [.watchPlayback]
        }
        var actions: [Action] = []
        // Where a job found no place: nothing of its purpose or a later one starts there before it (on its
        // host, or anywhere when the total was full).
        var heldFrom: [String: TransferPurpose] = [:]
        var heldEverywhereFrom: TransferPurpose?
        for job in waiting where heldHosts[job.host] == nil {
            // A spent budget holds back its own preloads only.
            if isHeldByBudget(job) {
                for id in job.subscribers.sorted() where subscribers[id]?.toldBudgetWait == false {
                    subscribers[id]?.toldBudgetWait = true
                    actions.append(.waiting(subscriber: id, [.byteBudget]))
                }
                continue
            }
            if let held = heldEverywhereFrom ?? heldFrom[job.host], job.purpose >= held { continue }
            let busy = jobs.values.filter { $0.phase != .queued }
            let onHost = busy.filter { $0.host == job.host }
            // Each purpose's share counts the running jobs of it and of later purposes only.
            let sharing = busy.filter { $0.purpose >= job.purpose }.count
            let sharingOnHost = onHost.filter { $0.purpose >= job.purpose }.count
            if busy.count >= limits.total || sharing >= limits.places(for: job.purpose, of: limits.total) {
                heldEverywhereFrom = heldEverywhereFrom ?? job.purpose
                continue
            }
            if onHost.count >= limits.perHost || sharingOnHost >= limits.places(for: job.purpose, of: limits.perHost) {
                heldFrom[job.host] = heldFrom[job.host] ?? job.purpose
                continue
            }
            jobs[job.id]?.phase = .running
            actions.append(.start(job.id))
        }
        return actions
    }
}
