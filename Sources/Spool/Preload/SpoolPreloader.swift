import Foundation

/// Keeps the next items of a feed preloaded while the current one plays, so that each starts at once.
///
/// ```swift
/// let preloader = SpoolPreloader(cache: cache)
/// preloader.setItems(feed.map { PreloadItem(url: $0.videoURL) }, current: 0)
/// // on each swipe:
/// preloader.setCurrent(index)
/// ```
///
/// Preloads read through the cache like playback, under the same keys and version checks, at prefetch
/// priority: they start no origin request while a playback read of the cache waits for origin bytes, and a
/// download in progress stops when one starts waiting and resumes from its first missing byte after. Items
/// that leave the window (a swipe) are cancelled at once; what they stored stays cached. See
/// `PreloadConfiguration` for the window and the targets. Preloads wait while the device's conditions do not
/// allow them (`PreloadConfiguration.rules`; by default, a constrained network).
///
/// Thread-safe; every method returns at once (downloads run in tasks the preloader owns; `stop()` awaits them).
public final class SpoolPreloader: Sendable {
    /// The cache preloaded into.
    public let cache: SpoolCache
    /// How it preloads.
    public let configuration: PreloadConfiguration
    /// Where it learns the device's conditions.
    public let conditions: any ConditionsSource

    private struct ItemAccount {
        /// The bytes stored by this item's downloads, by cache key.
        var stored: [String: ByteRangeSet] = [:]
        /// Whether it was the current item when it started (its bytes are its player's too).
        var wasCurrent: Bool
    }

    private struct State {
        var schedule: PreloadSchedule
        var tasks: [String: Task<Void, Never>] = [:]
        var states: [String: PreloadState] = [:]
        var accounts: [String: ItemAccount] = [:]
        var totals = PreloadTotals()
        /// The version of the latest report to the scheduler of what the items ahead hold.
        var budgetReports = 0
    }

    private let state: LockedBox<State>
    private let subscribers = Subscribers<PreloadEvent>()
    /// Whose preloads these are, for the scheduler's byte budgets.
    private let budgetOwner = SpoolPreloader.owners.withLock { last in
        last += 1
        return last
    }
    private static let owners = LockedBox(0, rank: .leaf)

    /// A preloader into `cache`, under the conditions `conditions` reports (`nil`: the device's own, from
    /// `NWPathMonitor` and `ProcessInfo`).
    public init(
        cache: SpoolCache, configuration: PreloadConfiguration = PreloadConfiguration(),
        conditions: (any ConditionsSource)? = nil
    ) {
        self.cache = cache
        self.configuration = configuration
        self.conditions = conditions ?? SystemConditions.shared
        state = LockedBox(State(schedule: PreloadSchedule(configuration: configuration)), rank: .preloader)
    }

    /// The feed's items, in order, and the index of the one playing (`nil`: none yet, nothing is preloaded).
    public func setItems(_ items: [PreloadItem], current: Int?) {
        apply { $0.setItems(items, current: current) }
    }

    /// The user moved to the item at `index`: items that left the window stop, new ones start.
    public func setCurrent(_ index: Int) {
        apply { $0.setCurrent(index) }
    }

    /// The user moved to the item with `id`.
    public func setCurrent(id: String) {
        apply { schedule in schedule.setCurrent(schedule.items.firstIndex { $0.id == id }) }
    }

    /// Where the item with `id` stands; `nil` for an item never in the window.
    public func state(of id: String) -> PreloadState? {
        state.withLock { $0.states[id] }
    }

    /// What the preloader has done so far.
    public var totals: PreloadTotals {
        state.withLock { $0.totals }
    }

    /// Every state change from now on, until `stop()` (or the consumer stops iterating).
    public func events() -> AsyncStream<PreloadEvent> {
        subscribers.stream()
    }

    deinit {
        cache.transfers.forgetBudget(owner: budgetOwner)
    }

    /// Cancels every download, waits for them to end, counts what they stored as played or wasted and ends
    /// the event streams. The preloader starts nothing after.
    public func stop() async {
        apply { $0.stop() }
        let running = state.withLock { Array($0.tasks.values) }
        for task in running { await task.value }
        cache.transfers.forgetBudget(owner: budgetOwner)
        subscribers.finish()
    }

    /// Preloads `item` now, outside any feed (the window is not involved), and returns how many of the bytes
    /// its target needs are stored: a one-off "get this ready".
    @discardableResult
    public func preload(_ item: PreloadItem) async throws -> Int64 {
        try await planAndPreload(item).bytes
    }

    /// `preload`, returning what was planned too: for the command line, which says what it stored.
    package func planAndPreload(_ item: PreloadItem) async throws -> (plan: PreloadPlan, bytes: Int64) {
        let planner = PreloadPlanner(client: client(), configuration: configuration)
        let job = PreloadJob(client: client(), planner: planner, onStored: { _, _ in }, onProgress: { _ in })
        let plan = try await planner.plan(item)
        return (plan, try await job.download(plan))
    }

    /// Where its transfers go: preloads, under its conditions, counted against its byte budget for `item`.
    private func client(for item: String? = nil) -> TransferClient {
        TransferClient(
            cache: cache, purpose: .preload,
            conditions: TransferConditions(source: conditions, rules: configuration.rules),
            budget: item.map { TransferBudgetClaim(owner: budgetOwner, item: $0) })
    }

    /// Tells the scheduler what the items ahead of the player hold, when a byte budget applies. Outside the
    /// lock (the scheduler calls back into the preloader); the version orders reports that race.
    private func reportBudget() {
        guard configuration.byteBudget != nil || cache.transfers.limits.preloadBytes != nil else { return }
        let (ahead, version) = state.withLock { state -> ([String: Int64], Int) in
            state.budgetReports += 1
            guard let current = state.schedule.current else { return ([:], state.budgetReports) }
            let items = state.schedule.items
            var ahead: [String: Int64] = [:]
            for (id, account) in state.accounts {
                guard let index = items.firstIndex(where: { $0.id == id }), index > current else { continue }
                ahead[id] = account.stored.values.reduce(0) { $0 + $1.byteCount }
            }
            return (ahead, state.budgetReports)
        }
        cache.transfers.budget(owner: budgetOwner, limit: configuration.byteBudget, ahead: ahead, version: version)
    }

    // MARK: Driving the schedule

    /// Changes the schedule under the lock and performs what it returns outside it.
    private func apply(_ change: (inout PreloadSchedule) -> [PreloadSchedule.Action]) {
        var events: [PreloadEvent] = []
        state.withLock { state in
            let actions = change(&state.schedule)
            for action in actions { perform(action, in: &state, events: &events) }
        }
        // An item the user just reached counts against nothing now.
        reportBudget()
        subscribers.yield(events)
    }

    /// Performs one action. Tasks are created under the lock so that one that ends at once still finds
    /// its entry; nothing here blocks.
    private func perform(_ action: PreloadSchedule.Action, in state: inout State, events: inout [PreloadEvent]) {
        switch action {
        case .start(let id):
            guard let item = state.schedule.item(id) else { return }
            let wasCurrent = state.schedule.current.map { state.schedule.items[$0].id == id } ?? false
            state.accounts[id] = ItemAccount(wasCurrent: wasCurrent)
            state.totals.itemsStarted += 1
            state.states[id] = .queued
            events.append((itemID: id, state: .queued))
            state.tasks[id] = Task { await self.download(item) }
        case .cancel(let id):
            // Settled when its task has ended (`download`).
            state.tasks[id]?.cancel()
        case .settle(let id):
            settle(id, in: &state)
        }
    }

    private func download(_ item: PreloadItem) async {
        let id = item.id
        // The item counts against the budget before its first transfer asks the scheduler.
        reportBudget()
        let client = client(for: id)
        let job = PreloadJob(
            client: client, planner: PreloadPlanner(client: client, configuration: configuration),
            onStored: { [weak self] key, ranges in self?.noteStored(id, key: key, ranges: ranges) },
            onProgress: { [weak self] progress in self?.report(id, progress) })
        let outcome: Result<Int64, any Error>
        do {
            outcome = .success(try await job.run(item))
        } catch {
            outcome = .failure(error)
        }
        let cancelled = Task.isCancelled
        var events: [PreloadEvent] = []
        state.withLock { state in
            state.tasks[id] = nil
            let newState: PreloadState
            switch outcome {
            case .success(let bytes) where !cancelled:
                newState = .loaded(bytes: bytes)
                state.totals.itemsLoaded += 1
            case .failure(let error) where !cancelled && !(error is CancellationError):
                newState = .failed(String(describing: error))
            default:
                newState = .cancelled
            }
            state.states[id] = newState
            events.append((itemID: id, state: newState))
            let actions = state.schedule.finished(id, loaded: newState != .cancelled && !isFailure(newState))
            // Cancelled: it left the window, so it is settled now that it has stopped.
            if newState == .cancelled || state.schedule.status[id] == nil { settle(id, in: &state) }
            for action in actions { perform(action, in: &state, events: &events) }
        }
        reportBudget()
        subscribers.yield(events)
    }

    private func isFailure(_ state: PreloadState) -> Bool {
        if case .failed = state { return true }
        return false
    }

    /// Starts counting playback of `key` for the item, and adds what its download stored.
    private func noteStored(_ id: String, key: String, ranges: [Range<Int64>]) {
        let watch = state.withLock { state -> Bool in
            guard state.accounts[id] != nil else { return false }
            let isNew = state.accounts[id]!.stored[key] == nil
            var stored = state.accounts[id]!.stored[key] ?? ByteRangeSet()
            let before = stored.byteCount
            for range in ranges { stored.insert(range) }
            state.accounts[id]!.stored[key] = stored
            if !state.accounts[id]!.wasCurrent { state.totals.bytesPreloaded += stored.byteCount - before }
            return isNew
        }
        if watch { cache.statisticsCounter.watch(key: key) }
        if !ranges.isEmpty { reportBudget() }
    }

    private func report(_ id: String, _ progress: PreloadState) {
        let running = state.withLock { state in
            guard state.tasks[id] != nil else { return false }
            state.states[id] = progress
            return true
        }
        if running { subscribers.yield([(itemID: id, state: progress)]) }
    }

    /// Counts the item's stored bytes as played or wasted and stops watching its keys.
    private func settle(_ id: String, in state: inout State) {
        guard let account = state.accounts.removeValue(forKey: id) else { return }
        for (key, stored) in account.stored {
            let served = cache.statisticsCounter.servedRanges(key: key)
            cache.statisticsCounter.unwatch(key: key)
            guard !account.wasCurrent else { continue }
            let played = stored.ranges.reduce(Int64(0)) { total, range in
                total + served.intersection(range).reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
            }
            state.totals.bytesPlayed += played
            state.totals.bytesWasted += stored.byteCount - played
        }
    }
}
