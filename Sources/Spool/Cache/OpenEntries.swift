import Foundation

/// The entries this process has open, one engine each: handed out to readers, kept open a moment once idle,
/// then closed; taken out for eviction only while idle.
///
/// The map's lock is held for bookkeeping only: an engine is created under it without reading anything (it
/// opens when first used), and leaves it before it is closed or its files removed, outside the lock. Meanwhile
/// `closing` makes a new engine of the same entry wait, so it reads what the old one left.
final class OpenEntries: Sendable {
    private let engines = LockedBox<[String: ResourceEngine]>([:], rank: .openEntries)
    private let closing = ClosingEntries()
    /// Numbers the engines, so an engine's idle call is told apart from a later engine's of the same entry.
    private let engineCount = LockedBox(0)
    /// When the grace of each idle engine with a close scheduled ends (system uptime), by engine number.
    private let closeDeadlines = LockedBox<[Int: TimeInterval]>([:])
    /// Engines taken out of use because another process removed their files, by engine number: each closes
    /// once its last user leaves (`closeRemovedIfIdle`).
    private let removedElsewhere = LockedBox<[Int: ResourceEngine]>([:])
    private let store: DiskStore
    private let evictor: Evictor
    private let clock: any SpoolClock

    /// How many idle entries stay open at most, and for how long.
    ///
    /// A player comes back to the same file every few seconds while it plays, and reopening an entry reads
    /// its record, opens and locks its file, and sends the requests that arrive meanwhile the slow way: through
    /// `spool serve`, one 64 KiB range took 2.3–5.1 ms after 3 s idle against 1.2–1.7 ms with the entry open,
    /// and 100 connections starting at once had a p99 of 55 ms against 22. An idle entry costs a descriptor,
    /// a shared `flock` (another process's eviction passes it by meanwhile; this process's evicts it whole) and
    /// its block bookkeeping; at most `idleLimit` are kept.
    private static let idleLimit = 16
    private static let idleGrace: TimeInterval = 30

    init(store: DiskStore, evictor: Evictor, clock: any SpoolClock) {
        self.store = store
        self.evictor = evictor
        self.clock = clock
    }

    /// The engine of entry `key`, created if none is open, counted as used until `release`.
    func acquire(key: String, url: URL, origin: any Origin, environment: EngineEnvironment) -> ResourceEngine {
        var stale: ResourceEngine?
        defer { if let stale { closeRemovedIfIdle(stale) } }
        return engines.withLock { engines in
            stale = takeOutIfRemovedElsewhere(key, from: &engines)
            let engine =
                engines[key]
                ?? ResourceEngine(
                    id: engineCount.withLock { count in
                        count += 1
                        return count
                    }, key: key, url: url, origin: origin, environment: environment,
                    afterEarlierClose: { [closing] in await closing.wait(key) }
                ) { [weak self] id in self?.closeIfIdle(key: key, id: id) }
            engines[key] = engine
            engine.retain()
            return engine
        }
    }

    /// The engine of entry `key` and its content information, if one is open and knows it, counted as used
    /// until the engine's `lendStoredAndRelease` and then `released`; `nil` otherwise (nothing is created).
    func acquireIfKnown(key: String) -> (ResourceEngine, ContentInfo)? {
        var stale: ResourceEngine?
        defer { if let stale { closeRemovedIfIdle(stale) } }
        return engines.withLock { engines in
            stale = takeOutIfRemovedElsewhere(key, from: &engines)
            guard let engine = engines[key], let info = engine.retainIfKnown() else { return nil }
            return (engine, info)
        }
    }

    /// Takes the open engine of `key` out of use if another process removed its files (`spool clear`, an
    /// eviction that passed this process's lock by): the next read opens the entry anew and sees what is on
    /// disk now, and the old engine closes once its readers are done, which frees the file's space. One
    /// `fstat` of the open file per use; returns the engine taken out.
    private func takeOutIfRemovedElsewhere(_ key: String, from engines: inout [String: ResourceEngine])
        -> ResourceEngine?
    {
        guard let engine = engines[key], engine.wasRemovedElsewhere else { return nil }
        engines[key] = nil
        removedElsewhere.withLock { $0[engine.id] = engine }
        return engine
    }

    /// Closes `engine`, taken out of use because its files were removed, if nobody uses it any more.
    private func closeRemovedIfIdle(_ engine: ResourceEngine) {
        // Out of the map, it gains no user: once idle, it stays so.
        guard engine.isIdle, removedElsewhere.withLock({ $0.removeValue(forKey: engine.id) }) != nil else { return }
        closeDeadlines.withLock { $0[engine.id] = nil }
        engine.closeRemoved()
        evictor.noteClosed(key: engine.key, record: nil)
    }

    /// After a use ended by the engine itself (`lendStoredAndRelease`): schedules its close if it is idle.
    func released(_ engine: ResourceEngine, idle: Bool) {
        if idle { closeIfIdle(key: engine.key, id: engine.id) }
    }

    /// Ends a use of `engine`.
    func release(_ engine: ResourceEngine) {
        if engine.release() { closeIfIdle(key: engine.key, id: engine.id) }
    }

    /// The open engine of entry `key`, if any.
    func engine(for key: String) -> ResourceEngine? {
        engines.withLock { $0[key] }
    }

    /// Every open engine, by key.
    var all: [String: ResourceEngine] {
        engines.withLock { $0 }
    }

    /// Takes entry `key` out for removal unless it is in use: returns `nil` if it is, otherwise its idle engine
    /// (if one was open), which the caller closes before removing the files, and then calls `end`.
    func takeForRemoval(_ key: String) -> ResourceEngine?? {
        engines.withLock { engines -> ResourceEngine?? in
            let open = engines[key]
            if let open {
                guard open.isIdle else { return nil }
                engines[key] = nil
            }
            closing.begin(key)
            return .some(open)
        }
    }

    /// Ends a `takeForRemoval` of entry `key`.
    func endRemoval(_ key: String) {
        closing.end(key)
    }

    /// Closes engine `id` of entry `key` a moment after it went idle, unless it is used again meanwhile.
    private func closeIfIdle(key: String, id: Int) {
        if let removed = removedElsewhere.withLock({ $0[id] }) { return closeRemovedIfIdle(removed) }
        // An idle entry stays open a moment: a player's next request for it (they come in bursts) then
        // finds its files open and its blocks already checked. The newest `idleLimit` stay at most
        // `idleGrace` seconds.
        let deadline = clock.uptime + Self.idleGrace
        // A close already scheduled only has its deadline moved: a burst of small requests, each leaving the
        // engine idle for a moment, takes no other lock and starts no task.
        let moved = closeDeadlines.withLock { deadlines -> Bool in
            guard deadlines[id] != nil else { return false }
            deadlines[id] = deadline
            return true
        }
        if moved { return }
        let (engine, overflow) = engines.withLock { engines -> (ResourceEngine?, [ResourceEngine]) in
            guard let engine = engines[key], engine.id == id, engine.isIdle else { return (nil, []) }
            let idle = engines.values.filter { $0.isIdle && $0 !== engine }
            return (engine, idle.count >= Self.idleLimit ? Array(idle.prefix(idle.count - Self.idleLimit + 1)) : [])
        }
        guard let engine else { return }
        if !overflow.isEmpty {
            Task { [weak self] in
                for old in overflow { await self?.closeNow(old) }
            }
        }
        let scheduled = closeDeadlines.withLock { deadlines -> Bool in
            defer { deadlines[id] = deadline }
            return deadlines[id] != nil
        }
        guard !scheduled else { return }
        // The task holds the entries only between its sleeps, so a cache dropped meanwhile goes at once (a
        // closed cache's engines are not touched again), as it did before the grace became a moving deadline.
        Task { [weak self, clock] in
            // Each pass sleeps until the deadline it read; the deadline moves only when the engine goes idle again.
            while let wait = self?.remainingGrace(of: engine.id), wait > 0 {
                try? await clock.sleep(until: clock.uptime + wait)
            }
            guard let self, self.remainingGrace(of: engine.id) == nil else { return }
            await self.closeNow(engine)
        }
    }

    /// What is left of the grace of engine `id`, forgetting its deadline once it has passed (then `0`); `nil`
    /// when no close is scheduled for it.
    private func remainingGrace(of id: Int) -> TimeInterval? {
        closeDeadlines.withLock { deadlines -> TimeInterval? in
            guard let deadline = deadlines[id] else { return nil }
            let wait = deadline - clock.uptime
            if wait <= 0 { deadlines[id] = nil }
            return max(0, wait)
        }
    }

    /// Closes and forgets `engine` if it is still the entry's and idle.
    func closeNow(_ engine: ResourceEngine) async {
        // The index write and its sync first, while a reader may still come back to the open entry.
        if engine.isIdle { await engine.index.flush() }
        let leaving = engines.withLock { engines -> Bool in
            guard engines[engine.key] === engine, engine.isIdle else { return false }
            engines[engine.key] = nil
            closing.begin(engine.key)
            return true
        }
        guard leaving else { return }
        await engine.close()
        let (store, key) = (store, engine.key)
        let record = try? await BlockingIO.run { store.record(key: key) }
        evictor.noteClosed(key: key, record: record ?? nil)
        closing.end(key)
    }

    /// For a cache dropped without `close()`: idle entries are closed, the others' records written.
    func closeBlocking() {
        for engine in engines.withLock({ Array($0.values) }) {
            if engine.isIdle { engine.closeBlocking() } else { engine.index.flushBlocking() }
        }
    }
}
