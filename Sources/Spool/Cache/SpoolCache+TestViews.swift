/// What tests look at inside a cache: never public.
extension SpoolCache {
    /// Whether an origin request of `resource` runs in this process now: for tests that check that nothing more
    /// is fetched, without watching the wire for a while.
    package func isFetching(_ resource: Resource) -> Bool {
        open.engine(for: key(for: resource))?.locked.withLock { !$0.tasks.isEmpty || $0.discoveryTask != nil } ?? false
    }

    /// Returns once no origin request of `resource` runs in this process (those running when it is called, and
    /// any they hand over to): for tests that check what was stored once the fetching has stopped, rather than
    /// waiting a while.
    package func requestsEnded(for resource: Resource) async {
        guard let engine = open.engine(for: key(for: resource)) else { return }
        await engine.requestsEnded()
    }

    /// The open engine of `resource`, if any, as it is: for tests that look inside.
    func openEngine(for resource: Resource) -> ResourceEngine? {
        open.engine(for: key(for: resource))
    }
}
