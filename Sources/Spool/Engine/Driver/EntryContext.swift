import Foundation

/// What the parts of one entry's engine share: the entry's identity and environment, the state its one lock
/// guards, and the wake-ups of those waiting for that state to change.
///
/// Every part (`FetchRunner`, `ChunkWriter`, `StoredReader`, `SliceLender`, `IndexWriter`, `VersionReset`)
/// holds this and nothing of the others' state; continuations and revocations are resumed outside the lock.
final class EntryContext: Sendable {
    let key: String
    let url: URL
    let origin: any Origin
    let environment: EngineEnvironment
    let locked: LockedBox<LockedEntry>
    /// Tells the cache that the engine has nothing left running and no user.
    let becameIdle: @Sendable () -> Void
    /// Whose reads the origin requests serve, for the CMCD they carry.
    let clientDataSources = LockedBox(ClientDataSources())

    init(
        key: String, url: URL, origin: any Origin, environment: EngineEnvironment,
        becameIdle: @escaping @Sendable () -> Void
    ) {
        self.key = key
        self.url = url
        self.origin = origin
        self.environment = environment
        self.becameIdle = becameIdle
        locked = LockedBox(
            LockedEntry(
                state: EngineState(
                    policy: environment.policy, info: nil, stored: ByteRangeSet(),
                    created: environment.clock.date)), rank: .entry)
    }

    /// The CMCD of an origin request that serves a player (`forPlayer`; `nil`: whoever read last), if any.
    func clientData(forPlayer: Bool?, mimeType: String?) -> CommonMediaClientData? {
        let policy = environment.clientData
        let rate = environment.link.estimate(for: url).bytesPerSecond
        return clientDataSources.withLock {
            $0.data(forPlayer: forPlayer, policy: policy, mimeType: mimeType, originBytesPerSecond: rate)
        }
    }

    var store: DiskStore { environment.store }
    var policy: FetchPolicy { environment.policy }
    /// The URL as problems and records name it (without credentials or query secrets).
    var displayURL: String { CacheKeyPolicy.displayURL(for: url) }

    /// What is known of the link to the origin, for the state's decisions: the link monitor's estimate of the
    /// host, and whether the origin's bodies pause while unread. Over a connection shared by several requests
    /// (HTTP/2) they do not, whatever the transport says: the connection is read for the other streams, and
    /// AsyncHTTPClient lets an unread stream take its 8 MiB window. (A host's first request goes out before
    /// that is known: over HTTP/2 it runs on while a reader reads it, and ends at once when left.)
    func linkEstimate() -> LinkEstimate {
        var estimate = environment.link.estimate(for: url)
        estimate.pausesWhileUnread = origin.readsPauseWhileUnread && !estimate.multiplexed
        return estimate
    }

    /// Wakes every reader waiting for a change, after running the revocations queued under the lock.
    func notifyReaders() {
        runRevocations()
        let waiters = locked.withLock(Self.takeWaiters)
        for waiter in waiters { waiter.resume() }
    }

    /// Counts a change and takes every waiting reader's continuation (and every waiter for the content
    /// information), for the caller to resume after the lock.
    private static func takeWaiters(_ entry: inout LockedEntry) -> [CheckedContinuation<Void, Never>] {
        entry.readerWakeups &+= 1
        defer {
            entry.waiters.removeAll()
            entry.infoWaiters.removeAll()
        }
        return Array(entry.waiters.values) + entry.infoWaiters.values
    }

    /// Offers `chunk`, which request `fetch` received for resource offset `offset`, to readers until it is
    /// stored (`ArrivingBytes`), and wakes those waiting. A request the state no longer runs offers nothing.
    func arrived(_ chunk: Data, at offset: Int64, fetch: Int) {
        let waiters = locked.withLock { entry -> [CheckedContinuation<Void, Never>] in
            guard entry.state.isRunning(fetch: fetch) else { return [] }
            entry.arriving.add(chunk, at: offset, fetch: fetch, versionNumber: entry.state.versionNumber)
            // Counted even with nobody waiting: a reader between its step and its wait compares the count, or
            // it would sleep through these bytes until the next change (a write that may not come soon).
            return Self.takeWaiters(&entry)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wakes the requests held back (`FetchRunner.holdBack`) to look at their readers again: a reader has
    /// joined or started waiting for a request, which may end a hold for an abandoned request or one that
    /// paused for playback elsewhere.
    func wakeHolds() {
        let holds = locked.withLock { entry -> [CheckedContinuation<Void, Never>] in
            entry.holdWakeups &+= 1
            defer { entry.holdWaiters.removeAll() }
            return Array(entry.holdWaiters.values)
        }
        for hold in holds { hold.resume() }
    }

    /// Returns once someone waits in `waiters` (`suspend`): at once if someone does. For tests, which wait for
    /// a request to be held back (`\.holdWaiters`) or a version change to wait for lent slices
    /// (`\.leaseWaiters`) instead of looking again and again.
    func untilWaiting(in waiters: LockedEntry.WaiterList) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = locked.withLock { entry in
                if !entry[keyPath: waiters].isEmpty { return true }
                entry.waitWatchers.append((waiters, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Runs the slice revocations queued under the lock.
    func runRevocations() {
        let revocations = locked.withLock { entry in
            defer { entry.revocations.removeAll() }
            return entry.revocations
        }
        for revoke in revocations { revoke() }
    }

    /// Returns once `ready` holds (checked under the lock) or the task is cancelled. Until then the caller waits
    /// in `waiters` under `id`, for whoever makes `ready` true to resume it outside the lock.
    func suspend(
        id: Int, in waiters: LockedEntry.WaiterList, until ready: (LockedEntry) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, watchers) = locked.withLock { entry -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if ready(entry) || Task.isCancelled { return (true, []) }
                    entry[keyPath: waiters][id] = continuation
                    guard !entry.waitWatchers.isEmpty else { return (false, []) }
                    let watchers = entry.waitWatchers.filter { $0.list == waiters }.map(\.continuation)
                    entry.waitWatchers.removeAll { $0.list == waiters }
                    return (false, watchers)
                }
                if now { continuation.resume() }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            locked.withLock { $0[keyPath: waiters].removeValue(forKey: id) }?.resume()
        }
    }

    /// Opens the data file on `BlockingIO`, off the lock, unless it is open (work planned under the lock found
    /// it closed: `LockedEntry.FileNotOpen`); a failure is reported.
    func openFile() async throws {
        let problems = environment.problems
        try await BlockingIO.run { [self] in
            do {
                try openFileNow()
            } catch {
                if case .storage(let reason) = error as? SpoolError { problems.report(.storageFailed(reason)) }
                throw error
            }
        }
    }

    /// Opens the data file and installs it, blocking, unless it is open or a version change still owes its
    /// disk work (which opens it itself). Off every lock: the `open` and the `flock` run between two turns of
    /// it, and a file another caller installed meanwhile wins.
    func openFileNow() throws {
        guard locked.withLock({ $0.file == nil && !$0.state.isResetting }) else { return }
        let opened = try store.openFile(key: key, codec: environment.codec)
        let extra = locked.withLock { entry -> BlockFile? in
            guard entry.file == nil, !entry.state.isResetting else { return opened }
            entry.file = opened
            return nil
        }
        extra?.close()
    }

    /// Reports damaged stored bytes, once each, to the cache's problem handler.
    func reportDamage(_ ranges: [Range<Int64>]) {
        for range in ranges { environment.problems.report(.corruptData(url: displayURL, range: range)) }
    }
}
