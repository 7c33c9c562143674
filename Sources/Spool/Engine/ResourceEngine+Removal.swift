import Foundation

/// Eviction and removal of an engine's bytes, and waiting for its requests to end.
extension ResourceEngine {
    /// Gives up at least `bytes` of stored blocks if it can (`EngineState.blocksToShed`); returns the bytes
    /// given up. Blocking (an index write): for the cache's eviction queue.
    func shed(_ bytes: Int64) -> Int64 {
        let freed = fetcher.perform { entry -> Int64 in
            guard !entry.state.record.pinned, case .done = entry.opening else { return 0 }
            return entry.state.shed(bytes, held: entry.leases.values.map(\.range))
        }
        if freed > 0 { index.flushBlocking() }
        return freed
    }

    /// Drops every stored byte and the index record, for `spool rm` on a resource in use.
    func removeAll() {
        fetcher.perform { $0.state.dropVersion() }
    }

    /// Returns once no origin request (nor a discovery) runs: each running task is awaited, and any started
    /// meanwhile (a retry's try) after it. For tests.
    func requestsEnded() async {
        for _ in 0..<1000 {
            let running = locked.withLock { Array($0.tasks.values) + ($0.discoveryTask.map { [$0] } ?? []) }
            guard !running.isEmpty else { return }
            for task in running { await task.value }
        }
    }

    /// Waits for the running origin requests to end, then brings the index up to date. Abandoned requests
    /// end at once: nothing will join them.
    func settle() async {
        let running = fetcher.perform { entry in
            entry.state.expireAllAbandoned()
            return Array(entry.tasks.values)
        }
        for task in running { await task.value }
        await index.flush()
    }
}
