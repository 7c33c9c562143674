import Foundation

/// What the parts of one entry's engine share: the entry's identity and environment, the state its one lock
/// guards, and the wake-ups of those waiting for that state to change.
///
/// Every part (`FetchRunner`, `ChunkWriter`, `StoredReader`, `SliceLender`, `IndexWriter`, `VersionReset`)
/// holds this and nothing of the others' state; continuations and revocations are resumed outside the lock.
final class EntryCore: Sendable {
    let key: String
    let url: URL
    let origin: any Origin
    let environment: EngineEnvironment
    let inner: LockedBox<EntryInner>
    /// Tells the cache that the engine has nothing left running and no user.
    let becameIdle: @Sendable () -> Void

    init(
        key: String, url: URL, origin: any Origin, environment: EngineEnvironment,
        becameIdle: @escaping @Sendable () -> Void
    ) {
        self.key = key
        self.url = url
        self.origin = origin
        self.environment = environment
        self.becameIdle = becameIdle
        inner = LockedBox(
            EntryInner(
                state: EngineState(
                    policy: environment.policy, info: nil, stored: ByteRangeSet(), storageIsShared: true,
                    created: environment.clock.date)), rank: .entry)
    }

    var store: DiskStore { environment.store }
    var policy: FetchPolicy { environment.policy }
    /// The URL as problems and records name it (without credentials or query secrets).
    var displayURL: String { CacheKeyPolicy.displayURL(for: url) }

    /// Wakes every reader waiting for a change, after running the revocations queued under the lock.
    func notifyReaders() {
        runRevocations()
        let waiters = inner.withLock(Self.takeWaiters)
        for waiter in waiters { waiter.resume() }
    }

    /// Counts a change and takes every waiting reader's continuation (and every waiter for the content
    /// information), for the caller to resume after the lock.
    private static func takeWaiters(_ inner: inout EntryInner) -> [CheckedContinuation<Void, Never>] {
        inner.changes &+= 1
        defer {
            inner.waiters.removeAll()
            inner.infoWaiters.removeAll()
        }
        return Array(inner.waiters.values) + inner.infoWaiters.values
    }

    /// Offers `chunk`, which request `fetch` received for resource offset `offset`, to readers until it is
    /// stored (`ArrivingBytes`), and wakes those waiting. A request the state no longer runs offers nothing.
    func arrived(_ chunk: Data, at offset: Int64, fetch: Int) {
        let waiters = inner.withLock { inner -> [CheckedContinuation<Void, Never>] in
            guard inner.state.isRunning(fetch: fetch) else { return [] }
            inner.arriving.add(chunk, at: offset, fetch: fetch, generation: inner.state.generation)
            // Counted even with nobody waiting: a reader between its step and its wait compares the count, or
            // it would sleep through these bytes until the next change (a write that may not come soon).
            return Self.takeWaiters(&inner)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wakes the requests held back (`FetchRunner.holdBack`) to look at their readers again: a reader has
    /// joined or started waiting for a request, which may end a hold for an abandoned request or one that
    /// paused for playback elsewhere.
    func wakeHolds() {
        let holds = inner.withLock { inner -> [CheckedContinuation<Void, Never>] in
            inner.holdChanges &+= 1
            defer { inner.holdWaiters.removeAll() }
            return Array(inner.holdWaiters.values)
        }
        for hold in holds { hold.resume() }
    }

    /// Runs the slice revocations queued under the lock.
    func runRevocations() {
        let revocations = inner.withLock { inner in
            defer { inner.revocations.removeAll() }
            return inner.revocations
        }
        for revoke in revocations { revoke() }
    }

    /// Returns once `ready` holds (checked under the lock) or the task is cancelled. Until then the caller waits
    /// in `waiters` under `id`, for whoever makes `ready` true to resume it outside the lock.
    func suspend(
        id: Int, in waiters: WritableKeyPath<EntryInner, [Int: CheckedContinuation<Void, Never>]> & Sendable,
        until ready: (EntryInner) -> Bool
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = inner.withLock { inner in
                    if ready(inner) || Task.isCancelled { return true }
                    inner[keyPath: waiters][id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            inner.withLock { $0[keyPath: waiters].removeValue(forKey: id) }?.resume()
        }
    }

    /// Reports damaged stored bytes, once each, to the cache's problem handler.
    func reportDamage(_ ranges: [Range<Int64>]) {
        for range in ranges { environment.problems.report(.corruptData(url: displayURL, range: range)) }
    }
}
