/// Where a lock sits in the package's lock order (the Concurrency article's "Locks, in the order they are
/// taken"): a thread holding a lock may take only locks of a higher level. Debug builds check it on every
/// `LockedBox.withLock` (`ConcurrencyChecks`), so a lock taken out of order fails the test that took it
/// instead of deadlocking one day in an app.
package struct LockRank: Sendable, Equatable {
    /// The position in the order: lower is taken first.
    package let level: Int
    /// The lock's name in failure messages and in the article.
    package let name: String

    package init(level: Int, name: String) {
        self.level = level
        self.name = name
    }
}

extension LockRank {
    // The proxy's locks come before the engine's: a listener or server holding one may call into the cache's
    // bookkeeping (lending stored bytes takes the map's and the entry's locks), never the other way round.

    /// `SpoolProxy`'s life cycle (idle, starting, running, stopping).
    package static let proxyLifecycle = LockRank(level: 10, name: "SpoolProxy.state")
    /// `ProxyListener`'s state machine and the server it started.
    package static let proxyListener = LockRank(level: 12, name: "ProxyListener.guarded")
    /// `ProxyServer`'s open connections.
    package static let proxyConnections = LockRank(level: 14, name: "ProxyServer.connections")
    /// The proxy's preload feed (`PreloadControl`): changed together with the preloader's items, under it.
    package static let preloadFeed = LockRank(level: 16, name: "PreloadControl.feed")
    /// `SpoolPreloader`'s schedule and tasks: settling an item reads the statistics counter under it.
    package static let preloader = LockRank(level: 20, name: "SpoolPreloader.state")
    /// A download queue's schedule and tasks (`DownloadQueue`): it tells its subscribers (a leaf) of running
    /// items' progress under it, so that they hear an item's start before what the item reports.
    package static let downloadQueue = LockRank(level: 22, name: "DownloadQueue.state")
    /// The transfer scheduler's schedule (`TransferScheduler`): a subscriber leaves it from a cancellation
    /// handler, which runs where its task is cancelled, under the preloader's lock too.
    package static let transfers = LockRank(level: 25, name: "TransferScheduler.state")
    /// `SpoolCache`'s map of open entries.
    package static let openEntries = LockRank(level: 30, name: "OpenEntries.engines")
    /// The entries being closed or removed, which new engines of theirs wait for.
    package static let closingEntries = LockRank(level: 40, name: "ClosingEntries.closing")
    /// One entry's state (`EntryContext.locked`): its resource state, open data file and checksums.
    package static let entry = LockRank(level: 50, name: "EntryContext.locked")
    /// One URLSession transfer's launch, under which the transport registers it (its `transfers`, a leaf).
    package static let transferLaunch = LockRank(level: 900, name: "URLSessionTransport.launch")
    /// A body URLSession pushes (`PushedBody`), under which its transfer is paused or resumed (URLSession takes
    /// none of the package's locks) and its reader handed a chunk.
    package static let pushedBody = LockRank(level: 950, name: "PushedBody.state")
    /// A lock under which nothing else is taken: held for its own type's bookkeeping, calling nothing outside
    /// it. Two leaves are never nested.
    package static let leaf = LockRank(level: 1_000, name: "a leaf lock")
    /// A clock's own lock (a clock a test drives): the time may be read under any other lock.
    package static let clock = LockRank(level: 2_000, name: "a clock")
}
