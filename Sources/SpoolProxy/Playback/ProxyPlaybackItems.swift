import Foundation
import Spool

/// The items the proxy's players are playing, each with its playback report being written
/// (`PlaybackRecording`): a progressive file is an item; an HLS stream is one item, its playlist's (a master
/// playlist's when it has one), which the variant playlists, segments and keys it names belong to.
///
/// An item's report is finished once no request for it has been open for `idleInterval` (a player that
/// moved on), or when the proxy stops. A timer task runs while any item is open.
final class ProxyPlaybackItems: Sendable {
    /// A request of a player's for an item: ended once with `end(_:)`.
    struct Ticket: Sendable {
        let item: String
        /// The request, for the read sessions that serve it.
        let request: PlaybackRequest
    }

    private struct Item {
        let recording: PlaybackRecording
        var openRequests = 0
        var lastActivity: TimeInterval
    }

    private struct State {
        /// The items by the cache key of their main resource.
        var items: [String: Item] = [:]
        /// The item each resource a playlist named belongs to, by cache key.
        var owners: [String: String] = [:]
        var sweeping = false
        var sweeper: Task<Void, Never>?
        var stopped = false
    }

    /// How many resources named by playlists the map of owners keeps before it starts afresh.
    static let ownersCapacity = 8192

    private let cache: SpoolCache
    private let idleInterval: TimeInterval
    private let state = LockedBox(State())

    init(cache: SpoolCache, idleInterval: TimeInterval = PlaybackReports.idleInterval) {
        self.cache = cache
        self.idleInterval = idleInterval
    }

    /// A request of a player's for `origin` (cache key `key`) begins.
    func begin(origin: URL, key: String) -> Ticket {
        let now = cache.clock.uptime
        let (itemKey, recording, startSweeper) = state.withLock { state -> (String, PlaybackRecording, Bool) in
            let itemKey = state.owners[key] ?? key
            var item =
                state.items[itemKey]
                ?? Item(
                    recording: cache.playback.recording(
                        item: CacheKeyPolicy.displayURL(for: origin), path: .proxy),
                    lastActivity: now)
            item.openRequests += 1
            item.lastActivity = now
            state.items[itemKey] = item
            let startSweeper = !state.sweeping && !state.stopped
            if startSweeper { state.sweeping = true }
            return (itemKey, item.recording, startSweeper)
        }
        // Outside the lock: the recording's is a leaf too.
        let ticket = Ticket(item: itemKey, request: recording.requestStarted())
        if startSweeper {
            let task = Task { await sweep() }
            state.withLock { state in
                if state.stopped { task.cancel() } else if state.sweeping { state.sweeper = task }
            }
        }
        return ticket
    }

    /// The request of `ticket` ended.
    func end(_ ticket: Ticket) {
        ticket.request.end()
        let now = cache.clock.uptime
        state.withLock { state in
            guard var item = state.items[ticket.item] else { return }
            item.openRequests = max(0, item.openRequests - 1)
            item.lastActivity = now
            state.items[ticket.item] = item
        }
    }

    /// `playlist`, at `url`, was served: what it names belongs to its item.
    func named(by playlist: HLSPlaylist, at url: URL) {
        let key = cache.key(for: Resource(url: url))
        let named = playlist.references.map { cache.key(for: Resource(url: $0.url)) }
        state.withLock { state in
            let owner = state.owners[key] ?? key
            if state.owners.count + named.count > Self.ownersCapacity { state.owners.removeAll(keepingCapacity: true) }
            for reference in named where reference != owner { state.owners[reference] = owner }
        }
    }

    /// Finishes every item's report: the proxy stops.
    func finishAll() {
        let recordings = state.withLock { state -> [PlaybackRecording] in
            state.stopped = true
            state.sweeper?.cancel()
            state.sweeper = nil
            defer { state.items.removeAll() }
            return state.items.values.map(\.recording)
        }
        for recording in recordings { recording.finish() }
    }

    /// Finishes the reports of items idle for `idleInterval`, every half interval, while any item is open.
    private func sweep() async {
        let clock = cache.clock
        while true {
            try? await clock.sleep(until: clock.uptime + idleInterval / 2)
            guard !Task.isCancelled else { return }
            let now = clock.uptime
            let (idle, goOn) = state.withLock { state -> ([PlaybackRecording], Bool) in
                let idle = state.items.filter {
                    $0.value.openRequests == 0 && now - $0.value.lastActivity >= idleInterval
                }
                for key in idle.keys { state.items[key] = nil }
                let goOn = !state.items.isEmpty && !state.stopped
                if !goOn { (state.sweeping, state.sweeper) = (false, nil) }
                return (idle.values.map(\.recording), goOn)
            }
            for recording in idle { recording.finish() }
            guard goOn else { return }
        }
    }
}
