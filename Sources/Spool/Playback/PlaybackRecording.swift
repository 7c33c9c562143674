import Foundation

/// The playback report of one item being written: the requests a player makes for the item (each a
/// `PlaybackRequest`) add what they served and waited for; the player's own figures come from its adapter
/// (AVPlayer's access log); `finish()` publishes the report once.
package final class PlaybackRecording: Sendable {
    private struct State {
        var startedAt: Date?
        var startUptime: TimeInterval = 0
        var firstByte: TimeInterval?
        var firstMedia: TimeInterval?
        /// The bytes of the start window (`PlaybackReports.startBytes`) served so far, from disk and not.
        var startFromCache: Int64 = 0
        var startFromOrigin: Int64 = 0
        /// Ranges of the start this playback took from the origin (while `startBytes` are counted): read
        /// again from disk (AVPlayer's second request re-reads its first's two bytes), they are still the
        /// origin's for the start.
        var startFetched = ByteRangeSet()
        var fromCache: Int64 = 0
        var fromPreload: Int64 = 0
        var fromDownload: Int64 = 0
        var fromOrigin: Int64 = 0
        var requestsFromCache = 0
        var requestsFromOrigin = 0
        var originWaits = 0
        var originWaitTime: TimeInterval = 0
        /// The end of the latest wait counted: an overlapping wait adds only its time past it.
        var waitedUntil: TimeInterval = 0
        var player: PlayerFigures?
        /// Whether the player sent CMCD with its requests, and how many said its buffer had run dry (`bs`).
        var sentClientData = false
        var starvations = 0
        var finished = false
    }

    /// What a player reports of its own playback (AVPlayer's access log).
    package struct PlayerFigures: Sendable, Equatable {
        /// Seconds from the first request to ready to play.
        package var startup: TimeInterval?
        /// How many times it stalled.
        package var stalls: Int
        /// Seconds it spent stalled.
        package var rebuffering: TimeInterval?
        /// Seconds it played.
        package var playing: TimeInterval?

        /// These figures.
        package init(startup: TimeInterval?, stalls: Int, rebuffering: TimeInterval?, playing: TimeInterval?) {
            self.startup = startup
            self.stalls = stalls
            self.rebuffering = rebuffering
            self.playing = playing
        }
    }

    /// The item, as a report names it.
    package let item: String
    private let path: PlaybackReport.Path
    private let clock: any SpoolClock
    private let fetchedAhead: FetchedAhead
    private let publish: @Sendable (PlaybackReport) -> Void
    private let state = LockedBox(State())

    /// A recording of the item `item` (a display URL), read along `path`; `publish` takes
    /// the report when it is finished.
    package init(
        item: String, path: PlaybackReport.Path, clock: any SpoolClock, fetchedAhead: FetchedAhead,
        publish: @escaping @Sendable (PlaybackReport) -> Void
    ) {
        self.item = item
        self.path = path
        self.clock = clock
        self.fetchedAhead = fetchedAhead
        self.publish = publish
    }

    /// A request of the player's for the item starts: the first one starts the clock.
    package func requestStarted() -> PlaybackRequest {
        let (now, date) = (clock.uptime, clock.date)
        state.withLock { state in
            guard state.startedAt == nil else { return }
            (state.startedAt, state.startUptime) = (date, now)
        }
        return PlaybackRequest(recording: self)
    }

    /// The bytes of `range` of the resource with key `key` reached the player, `fresh` of them from the origin.
    func served(key: String, range: Range<Int64>, fresh: Int64) {
        let count = range.upperBound - range.lowerBound
        guard count > 0 else { return }
        let origin = min(max(0, fresh), count)
        let fromCache = count - origin
        let ahead = fromCache > 0 ? fetchedAhead.overlap(key: key, range: range) : (0, 0)
        let now = clock.uptime
        state.withLock { state in
            if state.firstByte == nil { state.firstByte = now - state.startUptime }
            let window = max(0, PlaybackReports.startBytes - state.startFromCache - state.startFromOrigin)
            if window > 0 {
                let taken = min(window, count)
                let fetchedBefore = state.startFetched.intersection(range).reduce(0) {
                    $0 + ($1.upperBound - $1.lowerBound)
                }
                let takenFromOrigin = min(taken, origin + min(fetchedBefore, fromCache))
                state.startFromOrigin += takenFromOrigin
                state.startFromCache += taken - takenFromOrigin
                if origin > 0 { state.startFetched.insert(range) }
            }
            state.fromCache += fromCache
            state.fromOrigin += origin
            let preloaded = min(ahead.0, fromCache)
            state.fromPreload += preloaded
            state.fromDownload += min(ahead.1, fromCache - preloaded)
        }
    }

    /// A media response (not a playlist) sent its first byte: through the proxy, playback can start.
    package func mediaStarted() {
        let now = clock.uptime
        state.withLock { state in
            if state.firstMedia == nil, state.startedAt != nil { state.firstMedia = now - state.startUptime }
        }
    }

    /// A read of the player's waited for origin bytes from `began` to `ended` (uptime). A wait that began
    /// before the item's first byte is its start, which `timeToFirstByte` tells, not a wait; one shorter than
    /// `PlaybackReports.noticeableWait` is not counted.
    func waited(from began: TimeInterval, to ended: TimeInterval) {
        guard ended > began else { return }
        state.withLock { state in
            guard let firstByte = state.firstByte, began >= state.startUptime + firstByte,
                ended - began >= PlaybackReports.noticeableWait
            else { return }
            // A reader faster than the link waits a moment for every chunk: only waits a player could notice
            // count, and overlapping ones (two requests waiting at once) once.
            if began >= state.waitedUntil { state.originWaits += 1 }
            state.originWaitTime += max(0, ended - max(began, state.waitedUntil))
            state.waitedUntil = max(state.waitedUntil, ended)
        }
    }

    /// A request ended; `usedOrigin`: some of its bytes came from the origin, or it waited for them.
    func requestEnded(usedOrigin: Bool) {
        state.withLock { state in
            if usedOrigin { state.requestsFromOrigin += 1 } else { state.requestsFromCache += 1 }
        }
    }

    /// A request's CMCD arrived; `starved` when it said the player's buffer ran dry since its last request.
    func clientDataReceived(starved: Bool) {
        state.withLock { state in
            state.sentClientData = true
            if starved { state.starvations += 1 }
        }
    }

    /// The player's own figures, as it last reported them.
    package func playerReported(_ figures: PlayerFigures) {
        state.withLock { $0.player = figures }
    }

    /// Publishes the report, once; an item never played has none.
    package func finish() {
        guard
            let report = state.withLock({ state -> PlaybackReport? in
                guard !state.finished, let startedAt = state.startedAt else { return nil }
                state.finished = true
                return Self.report(of: state, item: item, path: path, startedAt: startedAt)
            })
        else { return }
        publish(report)
    }

    private static func report(of state: State, item: String, path: PlaybackReport.Path, startedAt: Date)
        -> PlaybackReport
    {
        let start: PlaybackReport.Start =
            state.startFromOrigin == 0 && state.startFromCache > 0
            ? .fromCache : state.startFromCache > 0 ? .partlyCached : .cold
        return PlaybackReport(
            item: item, path: path, startedAt: startedAt, start: start, timeToFirstByte: state.firstByte,
            timeToStart: state.player?.startup ?? state.firstMedia,
            stalls: state.player?.stalls ?? (state.sentClientData ? state.starvations : nil),
            rebufferingTime: state.player?.rebuffering, playingTime: state.player?.playing,
            bytesFromCache: state.fromCache, bytesFromPreload: state.fromPreload, bytesFromDownload: state.fromDownload,
            bytesFromOrigin: state.fromOrigin, requestsFromCache: state.requestsFromCache,
            requestsFromOrigin: state.requestsFromOrigin, originWaits: state.originWaits,
            originWaitTime: state.originWaitTime)
    }
}
