/// The one way the driver carries out a version change the state decided.
extension FetchRunner {
    /// Runs `decide` under the entry's lock. When it says the version changed (returning the requests the new
    /// version stopped; `nil`: it did not change), the change is carried out as every version change is: the
    /// driver forgets what it knew of the old bytes (`VersionReset.begin`, under the same lock), the entry's
    /// write queue resets the files (`ChunkWriter.catchUp`), the stopped requests' tasks are cancelled (outside
    /// the lock: cancellation handlers take entries' locks), and readers are woken. Returns what `decide`
    /// returns beside.
    @discardableResult
    func changeVersion<Result>(
        _ decide: (inout LockedEntry) -> (stopped: [Int]?, result: Result)
    ) -> Result {
        let (cancelled, changed, result) = locked.withLock { entry -> ([Task<Void, Never>], Bool, Result) in
            let (stopped, result) = decide(&entry)
            guard let stopped else { return ([], false, result) }
            VersionReset.begin(in: &entry)
            return (stopped.compactMap { entry.tasks[$0] }, true, result)
        }
        if changed { writer.catchUp() }
        for task in cancelled { task.cancel() }
        context.notifyReaders()
        return result
    }
}
