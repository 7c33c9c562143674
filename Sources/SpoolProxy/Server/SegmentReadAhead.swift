import Foundation
import Spool

/// Reads the next segments of the HLS stream a player is playing into the cache, ahead of the player.
///
/// The proxy tells it each media playlist it serves (`learn`) and which variants and renditions a master
/// names (`learnMaster`); each segment request (`played`) moves the player's position. One read-ahead runs
/// per slot: the variants of a master share one (a player plays one of them at a time, so switching variant
/// cancels the other's read-ahead at once), each rendition type another. It reads segments in order, one at a
/// time, whole, at prefetch priority: it gives way to playback reads, and a player asking for a segment it is
/// reading shares its origin request. It starts with the player's own segment, which it gets once the player's
/// read has it, and stops `window` seconds (or bytes) past the player's position.
final class SegmentReadAhead: Sendable {
    /// How far ahead of the player segments are read.
    struct Window: Sendable {
        var seconds: Double
        var bytes: Int64
    }

    typealias Segment = HLSWalker.Segment

    private struct Playlist {
        var segments: [Segment]
        var slot: String
        var learned: TimeInterval
    }

    private struct Running {
        /// Tells this run from an earlier one of the same slot and playlist, cancelled.
        let id: Int
        let playlist: String
        /// The index of the last segment the player asked for; the read-ahead keeps `window` past it.
        var position: Int
        let task: Task<Void, Never>
        let started: TimeInterval
    }

    private struct State {
        var playlists: [String: Playlist] = [:]
        /// Segment (URL and range) to its playlist and index.
        var positions: [String: (playlist: String, index: Int)] = [:]
        /// Playlist URL to the slot its master gave it.
        var slots: [String: String] = [:]
        var running: [String: Running] = [:]
        var lastRunID = 0
        /// Every run's task until it ends, cancelled ones included, by run.
        var live: [Int: Task<Void, Never>] = [:]
    }

    private let state = LockedBox(State())
    private let cache: SpoolCache
    /// Where its reads go: read-ahead, the first of the transfers no player waits for.
    private let client: TransferClient
    let window: Window
    /// Playlists remembered (a few streams' variants and renditions), and read-aheads at a time.
    private static let playlistCapacity = 32
    private static let runningCapacity = 4

    init(cache: SpoolCache, window: Window) {
        self.cache = cache
        self.window = window
        client = TransferClient(cache: cache, purpose: .readAhead)
    }

    /// Notes the variants and renditions of a master: a player plays one variant at a time, and one
    /// rendition of each type.
    func learnMaster(_ playlist: HLSPlaylist, url: URL) {
        guard window.seconds > 0 else { return }
        state.withLock { state in
            for reference in playlist.references {
                switch reference.role {
                case .variant: state.slots[reference.url.absoluteString] = "\(url.absoluteString) variants"
                case .rendition:
                    let type = reference.attributes["TYPE"] ?? "media"
                    state.slots[reference.url.absoluteString] = "\(url.absoluteString) \(type)"
                default: break
                }
            }
            if state.slots.count > 64 * Self.playlistCapacity { state.slots.removeAll() }
        }
    }

    /// Notes the segments of a media playlist served from `url`.
    func learn(_ playlist: HLSPlaylist, url: URL) {
        guard window.seconds > 0 else { return }
        let segments = HLSWalker.segments(of: playlist)
        guard !segments.isEmpty else { return }
        let name = url.absoluteString
        let now = cache.clock.uptime
        state.withLock { state in
            if state.playlists[name] == nil, state.playlists.count >= Self.playlistCapacity,
                let oldest = state.playlists.min(by: { $0.value.learned < $1.value.learned })?.key
            {
                state.playlists[oldest] = nil
                state.positions = state.positions.filter { $0.value.playlist != oldest }
            }
            // A live playlist's segments leave it as new ones come: their positions go with the old version.
            for segment in state.playlists[name]?.segments ?? [] {
                let key = Self.key(segment.url, segment.range)
                if state.positions[key]?.playlist == name { state.positions[key] = nil }
            }
            let slot = state.slots[name] ?? name
            state.playlists[name] = Playlist(segments: segments, slot: slot, learned: now)
            for (index, segment) in segments.enumerated() {
                state.positions[Self.key(segment.url, segment.range)] = (name, index)
            }
        }
    }

    /// The player asked for `range` (`nil`: all) of `url`: when that is a known segment, the read-ahead of
    /// its slot continues from there (or starts, cancelling another variant's).
    func played(_ url: URL, range: Range<Int64>?) {
        guard window.seconds > 0 else { return }
        let cancelled: [Task<Void, Never>] = state.withLock { state in
            guard let (name, index) = state.positions[Self.key(url, range)],
                let playlist = state.playlists[name]
            else { return [] }
            if var running = state.running[playlist.slot], running.playlist == name {
                running.position = max(running.position, index)
                state.running[playlist.slot] = running
                return []
            }
            var cancelled: [Task<Void, Never>] = []
            if let other = state.running.removeValue(forKey: playlist.slot) { cancelled.append(other.task) }
            if state.running.count >= Self.runningCapacity,
                let oldest = state.running.min(by: { $0.value.started < $1.value.started })?.key
            {
                cancelled.append(state.running.removeValue(forKey: oldest)!.task)
            }
            let slot = playlist.slot
            state.lastRunID += 1
            let id = state.lastRunID
            let task = Task { await self.run(slot: slot, id: id) }
            state.live[id] = task
            state.running[slot] = Running(
                id: id, playlist: name, position: index, task: task, started: cache.clock.uptime)
            return cancelled
        }
        for task in cancelled { task.cancel() }
    }

    /// Cancels every read-ahead and waits for them to end.
    func stop() async {
        let tasks = state.withLock { state in
            defer { state.running.removeAll() }
            return state.running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }

    /// Reads the segments after the player's position, within the window, until there are none left to read.
    private func run(slot: String, id: Int) async {
        var done = Set<Int>()
        var sizes: [Int: Int64] = [:]
        while !Task.isCancelled, let (index, segment) = next(slot: slot, run: id, skipping: done, sizes: sizes) {
            done.insert(index)
            sizes[index] = await read(segment)
        }
        state.withLock { state in
            if state.running[slot]?.id == id { state.running[slot] = nil }
            state.live[id] = nil
        }
    }

    /// Returns once no read-ahead runs, those cancelled included (their requests have ended): for tests that
    /// check what was read ahead, and nothing more, once it has stopped.
    func settled() async {
        for _ in 0..<1000 {
            let tasks = state.withLock { Array($0.live.values) }
            guard !tasks.isEmpty else { return }
            for task in tasks { await task.value }
        }
    }

    /// The first segment within the window past the player's position that this run has not read. The bytes of
    /// a segment without a range are those read of it, or the average of those (a guess until one is read).
    /// When there is none the run leaves its slot in the same turn of the lock, so that a player's next
    /// segment starts a new run rather than moving the position of one that is ending.
    private func next(slot: String, run id: Int, skipping done: Set<Int>, sizes: [Int: Int64]) -> (Int, Segment)? {
        let average = sizes.isEmpty ? 0 : sizes.values.reduce(0, +) / Int64(sizes.count)
        return state.withLock { state -> (Int, Segment)? in
            guard let running = state.running[slot], running.id == id else { return nil }
            guard
                let found = Self.next(
                    in: state.playlists[running.playlist]?.segments ?? [], after: running.position,
                    window: window, skipping: done, sizes: sizes, average: average)
            else {
                state.running[slot] = nil
                return nil
            }
            return found
        }
    }

    /// The first segment of `segments` from `position` on, within `window` past it, not in `done`. The segment
    /// at `position` (the player's) comes first: reading it at prefetch priority waits until the player's own
    /// read has it (sharing its origin request), so that nothing is read ahead while the link still carries the
    /// segment the player waits for.
    private static func next(
        in segments: [Segment], after position: Int, window: Window, skipping done: Set<Int>, sizes: [Int: Int64],
        average: Int64
    ) -> (Int, Segment)? {
        if position < segments.count, !done.contains(position) { return (position, segments[position]) }
        var seconds = 0.0
        var bytes: Int64 = 0
        for index in (position + 1)..<max(position + 1, segments.count) {
            let segment = segments[index]
            seconds += segment.duration
            bytes += segment.range.map { $0.upperBound - $0.lowerBound } ?? sizes[index] ?? average
            // The first segment past the position always counts: a window shorter than one segment would
            // read nothing.
            if index > position + 1, seconds > window.seconds || bytes > window.bytes { return nil }
            if !done.contains(index) { return (index, segment) }
        }
        return nil
    }

    /// Stores one segment, whole, through the cache's transfer scheduler (as read-ahead, first among the
    /// transfers no player waits for); returns its bytes. Failures are the player's to see when it asks for
    /// the segment.
    private func read(_ segment: Segment) async -> Int64 {
        let span = segment.range.map(TransferSpan.init) ?? TransferSpan()
        guard let stored = try? await client.store(Resource(url: segment.url), span) else {
            // Cancelled, or the origin failed: the player's own request for it will say.
            return 0
        }
        return stored.upperBound - stored.lowerBound
    }

    private static func key(_ url: URL, _ range: Range<Int64>?) -> String {
        guard let range else { return url.absoluteString }
        return "\(url.absoluteString) \(range.lowerBound)-\(range.upperBound)"
    }
}
