/// How many transfer jobs run at once: in all, and against one host. Each job is one read of a resource's
/// missing bytes, so these bound the origin requests that fetches ahead of playback keep open (and so the
/// connections a phone opens for them).
package struct TransferLimits: Sendable, Equatable {
    /// Jobs at once, in all.
    package var total: Int
    /// Jobs at once against one host.
    package var perHost: Int
    /// The most bytes all preloaders together may hold for items their players have not reached
    /// (`TransferSchedule+Budget`); `nil`: no shared limit.
    package var preloadBytes: Int64?

    /// Six in all and four per host by default: against one host, downloads take at most two places (the
    /// download queue's two items), preloads three (the preloader's two items), and a player's read-ahead or
    /// an app's prefetch always finds one.
    package init(total: Int = 6, perHost: Int = 4, preloadBytes: Int64? = nil) {
        self.total = max(1, total)
        self.perHost = max(1, perHost)
        self.preloadBytes = preloadBytes.map { max(0, $0) }
    }

    /// The places of `limit` that jobs of `purpose` and of later purposes may take together: all of them for
    /// read-ahead and prefetches, all but one for preloads (with downloads), all but two for downloads (at
    /// least one each). A job of an earlier purpose then finds a place without a running one being stopped.
    package func places(for purpose: TransferPurpose, of limit: Int) -> Int {
        switch purpose {
        case .readAhead, .prefetch: limit
        case .preload: max(1, limit - 1)
        case .download: max(1, limit - 2)
        }
    }
}
