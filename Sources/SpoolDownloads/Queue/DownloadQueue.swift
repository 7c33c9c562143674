import Foundation
import Spool

/// Downloads for offline play, the way music and podcast apps need them: a queue of files and HLS streams that
/// survives a relaunch, a crash or the process being killed, runs a few at a time, waits for the device's
/// conditions (Wi-Fi, power, heat, free space), never competes with playback, and keeps what it downloads
/// from the streaming cache's eviction.
///
/// ```swift
/// let downloads = try await DownloadQueue(cache: cache)
/// for track in album.tracks { try await downloads.add(DownloadRequest(url: track.url, title: track.name)) }
/// for await event in downloads.events() { print(event.id, event.state as Any) }  // queued, waiting, downloading…
/// ```
///
/// Downloads go through the same cache, keys, validators and integrity checks as playback: a downloaded item
/// plays with no origin request, and bytes a player already cached are not fetched again. Each change of the
/// queue is written down (`downloads.json` in the cache directory, replaced atomically) before the method that
/// made it returns; after a relaunch every download that was not done goes on from its first missing byte.
/// One process runs a cache's queue at a time (`Failure.inUse`).
///
/// Thread-safe; downloads run in tasks the queue owns, and `stop()` awaits them.
public final class DownloadQueue: Sendable {
    /// The cache downloaded into.
    public let cache: SpoolCache
    /// How it downloads.
    public let configuration: DownloadConfiguration
    /// Where it learns the device's conditions.
    public let conditions: any ConditionsSource

    private struct State {
        var schedule: DownloadSchedule
        /// Each item's task, numbered: the task of an earlier run of the same item ends without touching a
        /// later one's.
        var tasks: [String: (run: Int, task: Task<Void, Never>)] = [:]
        var runs = 0
        /// What running items report (waiting, downloading), by id.
        var progress: [String: DownloadState] = [:]
        /// Items started by a change whose events are not told yet: what they report waits for those events,
        /// so that a subscriber never hears `downloading` before `queued`.
        var unannounced: Set<String> = []
    }

    private let state: LockedBox<State>
    private let subscribers = Subscribers<DownloadEvent>()
    private let file: DownloadQueueFile
    /// Where the queue is written down, one write after another.
    private let writes = BlockingIO.serialQueue(label: "Spool.DownloadQueue.writes")
    /// Checks the completed downloads after each removal from the cache in this process, until `stop()`.
    private let removalWatch = LockedBox<Task<Void, Never>?>(nil)

    /// Opens the download queue of `cache` (its directory's `downloads.json`) and goes on with what it holds.
    /// Throws `Failure.inUse` when another process runs it.
    public init(
        cache: SpoolCache, configuration: DownloadConfiguration = DownloadConfiguration(),
        conditions: (any ConditionsSource)? = nil
    ) async throws {
        self.cache = cache
        self.configuration = configuration
        self.conditions = conditions ?? SystemConditions.shared
        let directory = cache.configuration.directory
        let file = try await BlockingIO.run { try DownloadQueueFile(directory: directory) }
        let (entries, problem) = try await BlockingIO.run { file.load() }
        if let problem { cache.problems.report(.storageFailed(problem)) }
        self.file = file
        state = LockedBox(
            State(
                schedule: DownloadSchedule(
                    entries: entries, maximumConcurrent: configuration.maximumConcurrentDownloads)),
            rank: .downloadQueue)
        try await change { configuration.startsDownloads ? $0.start() : $0.stop() }
        let removals = cache.removals.stream()
        removalWatch.withLock { watch in
            watch = Task { [weak self] in
                for await _ in removals { try? await self?.checkStored() }
            }
        }
        try await checkStored()
    }

    /// Checks the completed downloads against the cache: those whose bytes are no longer stored whole (`spool
    /// rm` or `clear`, in this process or another; the system purging the cache directory) go back to the
    /// queue and are downloaded again, which `items` and the events say (`queued`). Runs when the queue opens
    /// and whenever this process's cache removes entries; call it before showing downloads as available offline when
    /// another process may have changed the cache. Reads the index only.
    public func checkStored() async throws {
        let completed = state.withLock { state in
            state.schedule.entries.filter { if case .completed = $0.phase { true } else { false } }.map(\.request)
        }
        var lost = Set<String>()
        for request in completed where !(await DownloadJob.isStoredWhole(request, in: cache)) {
            lost.insert(request.id)
        }
        guard !lost.isEmpty else { return }
        try await change { $0.lost(lost) }
    }

    deinit {
        removalWatch.withLock { $0 }?.cancel()
    }

    /// Adds a download at the end of the queue, and returns once the queue is written down. The same id again
    /// updates the request of an item that does not run, and starts a failed one again.
    public func add(_ request: DownloadRequest) async throws {
        try await change { $0.add(request) }
    }

    /// Adds `requests` at the end of the queue in one change, written down at once: an album is queued whole
    /// or, if the process dies first, not at all.
    public func add(contentsOf requests: [DownloadRequest]) async throws {
        try await change { schedule in
            let actions = requests.flatMap { schedule.add($0) }
            // One write, however many asked for one.
            return actions.filter { $0 != .persist } + (actions.contains(.persist) ? [.persist] : [])
        }
    }

    /// Pauses the download `id`: it stops, and what it stored stays, kept from eviction.
    public func pause(_ id: String) async throws {
        try await change { $0.pause(id) }
    }

    /// Queues the paused or failed download `id` again; it goes on from its first missing byte.
    public func resume(_ id: String) async throws {
        try await change { $0.resume(id) }
    }

    /// Removes the download `id`: it stops, and what it stored is unpinned and removed from the cache.
    public func remove(_ id: String) async throws {
        try await change { $0.remove(id) }
    }

    /// Every download, in queue order, with where it stands.
    public var items: [DownloadItem] {
        state.withLock { state in state.schedule.entries.map { Self.item($0, progress: state.progress) } }
    }

    /// The download `id` and where it stands; `nil` if the queue has none.
    public func item(_ id: String) -> DownloadItem? {
        state.withLock { state in
            state.schedule.entries.first { $0.request.id == id }.map { Self.item($0, progress: state.progress) }
        }
    }

    /// The queue of the cache in `directory` as it is written down, read without running it (another process
    /// may): running items show as queued. For the command line's list.
    package static func written(in directory: URL) async throws -> [DownloadItem] {
        try await BlockingIO.run { try DownloadQueueFile.read(in: directory) }.map { item($0, progress: [:]) }
    }

    /// Whether what `request` downloaded is still stored whole in `cache` (from the index, no origin request):
    /// for the command line's list of a queue no process runs.
    package static func isStoredWhole(_ request: DownloadRequest, in cache: SpoolCache) async -> Bool {
        await DownloadJob.isStoredWhole(request, in: cache)
    }

    /// Every change of a download's state from now on, until `stop()` (or the consumer stops iterating).
    public func events() -> AsyncStream<DownloadEvent> {
        subscribers.stream()
    }

    /// Stops every download and waits for them to end; the queue stays written down, running items as queued,
    /// for the next `DownloadQueue` on this cache, which may open once this returns. Ends the event streams;
    /// changes after it throw `Failure.stopped`.
    public func stop() async {
        removalWatch.withLock { $0 }?.cancel()
        _ = try? await change { $0.stop() }
        // A task leaves `tasks` once its end is written down, so this waits for those writes too.
        let running = state.withLock { $0.tasks.values.map(\.task) }
        for task in running { await task.value }
        // After the last write: the tasks' ends are written down.
        let (file, writes) = (file, writes)
        _ = try? await BlockingIO.run(on: writes) { file.unlock() }
        subscribers.finish()
    }

    // MARK: Driving the schedule

    /// Changes the schedule under the lock (and forgets the progress of `finishing`, whose task ended), starts
    /// and cancels tasks, discards what removed downloads stored, writes the queue down, then tells subscribers
    /// what changed: an event says what is on disk.
    private func change(
        finishing: String? = nil, _ change: (inout DownloadSchedule) -> [DownloadSchedule.Action]
    ) async throws {
        let (actions, cancelled, events) = state.withLock { state in
            let before = Self.states(of: state)
            if let finishing { state.progress[finishing] = nil }
            let actions = change(&state.schedule)
            var cancelled: [Task<Void, Never>] = []
            for action in actions {
                switch action {
                case .start(let id):
                    guard let entry = state.schedule.entries.first(where: { $0.request.id == id }) else { continue }
                    state.runs += 1
                    state.progress[id] = nil
                    state.unannounced.insert(id)
                    // Created under the lock, so that one that ends at once still finds its entry.
                    let run = state.runs
                    state.tasks[id] = (run, Task { await self.download(entry.request, run: run) })
                case .cancel(let id):
                    if let task = state.tasks[id]?.task { cancelled.append(task) }
                case .discard, .persist:
                    continue
                }
            }
            let events = Self.changes(from: before, to: Self.states(of: state))
            return (actions, cancelled, events)
        }
        // Outside the lock: a cancellation runs the task's cancellation handlers at once, which take the
        // entries' locks.
        for task in cancelled { task.cancel() }
        let discarded = actions.compactMap { if case .discard(let request) = $0 { request } else { nil } }
        if !discarded.isEmpty {
            let remaining = state.withLock { $0.schedule.entries.map(\.request) }
            var kept = Set<String>()
            for request in remaining { kept.formUnion(await DownloadJob.keys(of: request, in: cache)) }
            for request in discarded { await DownloadJob.discard(request, keeping: kept, in: cache) }
        }
        var failure: (any Error)?
        if actions.contains(.persist) {
            do { try await persist() } catch { failure = error }
        }
        subscribers.yield(events)
        let started = actions.compactMap { if case .start(let id) = $0 { id } else { nil } }
        if !started.isEmpty {
            // What the started items reported meanwhile, now that their start is told: under the lock, as
            // `report` tells what they report next.
            state.withLock { state in
                subscribers.yield(
                    started.compactMap { id -> DownloadEvent? in
                        guard state.unannounced.remove(id) != nil, let progress = state.progress[id] else { return nil }
                        return DownloadEvent(id: id, state: progress)
                    })
            }
        }
        if let failure { throw failure }
    }

    /// Writes the queue as it is when the write runs: a caller's change is on disk once its own write has run,
    /// whichever of two racing writes runs first.
    private func persist() async throws {
        let (state, file) = (state, file)
        try await BlockingIO.run(on: writes) {
            try file.save(state.withLock { $0.schedule.persisted })
        }
    }

    private func download(_ request: DownloadRequest, run: Int) async {
        let job = DownloadJob(
            client: TransferClient(
                cache: cache, purpose: .download,
                conditions: TransferConditions(
                    source: conditions, rules: configuration.rules,
                    diskRecheckInterval: configuration.diskRecheckInterval)),
            onState: { [weak self] in self?.report(request.id, $0) })
        let outcome: DownloadSchedule.Outcome
        do {
            outcome = .completed(bytes: try await job.run(request))
        } catch {
            outcome = Task.isCancelled || error is CancellationError ? .cancelled : .failed(String(describing: error))
        }
        do {
            try await change(finishing: request.id) { $0.finished(request.id, outcome) }
        } catch {
            // The queue could not be written down: it is in memory, and the next change writes it.
            cache.problems.report(.storageFailed(String(describing: error)))
        }
        // Only now, written down: `stop()` waits for this task until its end is on disk.
        state.withLock { state in
            if state.tasks[request.id]?.run == run { state.tasks[request.id] = nil }
        }
    }

    /// A running download's progress: told to subscribers while its task runs.
    private func report(_ id: String, _ progress: DownloadState) {
        state.withLock { state in
            guard state.tasks[id] != nil, state.progress[id] != progress else { return }
            state.progress[id] = progress
            // Under the lock: two reports reach subscribers in the order they were made.
            if !state.unannounced.contains(id) { subscribers.yield([DownloadEvent(id: id, state: progress)]) }
        }
    }

    private static func states(of state: State) -> [(id: String, state: DownloadState)] {
        state.schedule.entries.map { ($0.request.id, item($0, progress: state.progress).state) }
    }
}
