import Foundation

/// Lets reads ahead of playback give way to it across a whole cache. Playback *needs the link* while a
/// playback read waits for its first origin bytes or a player for a new resource's first answer (a start or a
/// seek: someone is looking at a spinner), while
/// playback reads spent more than half of the last second waiting for origin bytes (the link does not keep
/// up with them), and for `quietPeriod` after either. Meanwhile prefetch reads start no origin request, and
/// requests only they wait for pause.
///
/// A player that keeps up also waits now and then: its reads follow the requests that bring their bytes.
/// Counting every such wait starved preloads for as long as the current item streamed: on a 10 Mbit/s,
/// 100 ms link the next item of a 1.5 Mbit/s feed was never preloaded in time (its first frame came 1.9 ×
/// later than from a full cache), though the link had room for both.
///
/// Nothing polls: whoever waits for playback to stop needing the link is woken when a playback wait ends and
/// at the moment the need would lapse by itself (`waitForPlayback`).
final class PlaybackGate: Sendable {
    private struct State {
        /// Waits in progress: since when, and whether the read had delivered nothing yet.
        var waits: [Int: (since: TimeInterval, isStart: Bool)] = [:]
        var nextWait = 0
        /// Waits that ended within the last `window`, as start and end.
        var ended: [(start: TimeInterval, end: TimeInterval)] = []
        /// When a start last ended (the clock's uptime).
        var lastStart: TimeInterval = -.infinity
        /// When the waits that ended last filled no more than `busyShare` of the window any more.
        var busyUntil: TimeInterval = -.infinity
        /// Counts the playback waits that started or ended: the events that change the need before its time
        /// (a start makes it last until a wait's end, which ends abandoned requests: `EngineState.hold`).
        var changes: UInt64 = 0
        /// Whoever waits for the next of those (`waitForChange`), by watcher number.
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWatcher = 0
        /// Tests waiting for the gate to reach a state (`until`), with the state they wait for.
        var observers = StateWaiters<Observed>()

        var observed: Observed {
            Observed(startsWaiting: waits.values.filter(\.isStart).count, waits: waits.count, watchers: watchers.count)
        }

        /// Takes the observers whose condition now holds.
        mutating func satisfiedObservers() -> [CheckedContinuation<Void, Never>] {
            guard !observers.isEmpty else { return [] }
            let now = observed
            return observers.satisfied(by: now)
        }
    }

    /// What a test can wait for (`until`): playback waits in progress (starts among them), and reads ahead of
    /// playback waiting for it to stop needing the link.
    struct Observed: Sendable {
        var startsWaiting: Int
        var waits: Int
        var watchers: Int
    }

    private let state = LockedBox(State())
    private let quietPeriod: TimeInterval
    /// How far back the share of time spent waiting is measured.
    private let window: TimeInterval = 1
    /// The share of `window` playback reads may wait before playback needs the link.
    private let busyShare = 0.5
    private let clock: any SpoolClock

    init(quietPeriod: TimeInterval = 0.25, clock: any SpoolClock = SystemClock()) {
        self.quietPeriod = quietPeriod
        self.clock = clock
    }

    /// A playback read starts waiting for origin bytes; `isStart` when it has delivered nothing yet. Returns
    /// the wait's token for `playbackResumed`.
    func playbackWaits(isStart: Bool) -> Int {
        let now = clock.uptime
        let (token, woken) = state.withLock { state in
            state.nextWait += 1
            state.waits[state.nextWait] = (now, isStart)
            state.changes &+= 1
            defer { state.watchers.removeAll() }
            return (state.nextWait, Array(state.watchers.values) + state.satisfiedObservers())
        }
        for continuation in woken { continuation.resume() }
        return token
    }

    /// The wait `token` ended: the read got its bytes (or gave up).
    func playbackResumed(_ token: Int) {
        let now = clock.uptime
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard let wait = state.waits.removeValue(forKey: token) else { return [] }
            if wait.isStart { state.lastStart = now }
            state.ended.removeAll { $0.end < now - window }
            // Bounded: many readers ending many short waits keep only the latest.
            if state.ended.count >= 1024 { state.ended.removeFirst(state.ended.count - 1023) }
            state.ended.append((wait.since, now))
            // From now on the window may empty by itself: when it does is known now, whoever asks later.
            _ = needEnds(in: &state, now: now)
            state.changes &+= 1
            defer { state.watchers.removeAll() }
            return Array(state.watchers.values) + state.satisfiedObservers()
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Whether playback needs the link now (see the type's documentation).
    var isPlaybackActive: Bool {
        need().remaining > 0
    }

    /// How much longer playback needs the link if no playback wait starts or ends meanwhile (0 when it does
    /// not; infinite while only a wait's end can end the need), and the count of changes that
    /// `waitForChange(since:)` compares with.
    func need() -> (remaining: TimeInterval, seen: UInt64) {
        let now = clock.uptime
        return state.withLock { state in
            (needEnds(in: &state, now: now).map { max(0, $0 - now) } ?? .infinity, state.changes)
        }
    }

    /// When playback stops needing the link if no wait starts or ends meanwhile; `nil` while a start waits, or
    /// while waits in progress keep the last second more than `busyShare` full: then only a wait's end can end
    /// the need. (Waits in progress that fill the window less each moment could end it earlier; a player that
    /// keeps up ends its waits within moments, and the gate looks again then.)
    private func needEnds(in state: inout State, now: TimeInterval) -> TimeInterval? {
        if state.waits.values.contains(where: \.isStart) { return nil }
        let threshold = busyShare * window
        let inProgress = state.waits.values.reduce(0.0) { $0 + now - max($1.since, now - window) }
        if inProgress + waited(in: state.ended, at: now) > threshold {
            if !state.waits.isEmpty { return nil }
            state.busyUntil = max(state.busyUntil, busyEnd(of: state.ended, after: now, threshold: threshold))
        }
        return max(state.lastStart, state.busyUntil) + quietPeriod
    }

    /// The seconds of the window ending at `time` that the ended `waits` filled.
    private func waited(in waits: [(start: TimeInterval, end: TimeInterval)], at time: TimeInterval) -> TimeInterval {
        waits.reduce(0) { $0 + max(0, $1.end - max($1.start, time - window)) }
    }

    /// The first moment from `now` when the ended `waits` fill `threshold` seconds of the window or less. As the
    /// window slides they fill it less and less, linearly between the moments a wait's start or end leaves it.
    private func busyEnd(
        of waits: [(start: TimeInterval, end: TimeInterval)], after now: TimeInterval, threshold: Double
    )
        -> TimeInterval
    {
        let turns = Set(waits.flatMap { [$0.start + window, $0.end + window] }).filter { $0 > now }.sorted()
        var (from, filled) = (now, waited(in: waits, at: now))
        for turn in turns {
            let next = waited(in: waits, at: turn)
            if next <= threshold {
                // Linear on the way: where it reaches the threshold.
                return filled == next ? turn : from + (filled - threshold) / (filled - next) * (turn - from)
            }
            (from, filled) = (turn, next)
        }
        return from
    }

    /// Returns once playback does not need the link, or on cancellation: woken when a playback wait ends, and
    /// at the moment the need would lapse by itself, never in between.
    func waitForPlayback() async {
        while !Task.isCancelled {
            let (remaining, seen) = need()
            if remaining <= 0 { return }
            guard remaining.isFinite else {
                // Only a wait's end can end the need.
                await waitForChange(since: seen)
                continue
            }
            let deadline = clock.uptime + remaining
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [clock] in try? await clock.sleep(until: deadline) }
                group.addTask { await self.waitForChange(since: seen) }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns once the gate's state satisfies `condition`: at once if it does. For tests, which wait for a
    /// player to wait or a prefetch to give way instead of looking again and again.
    func until(_ condition: @escaping @Sendable (Observed) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if state.withLock({ $0.observers.wait(for: condition, continuation, now: $0.observed) }) {
                continuation.resume()
            }
        }
    }

    /// Returns once a playback wait has started or ended after the count `seen` (`need()`), or on cancellation.
    func waitForChange(since seen: UInt64) async {
        let id = state.withLock { state -> Int in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, observers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if state.changes != seen || Task.isCancelled { return (true, []) }
                    state.watchers[id] = continuation
                    return (false, state.satisfiedObservers())
                }
                if now { continuation.resume() }
                for observer in observers { observer.resume() }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.resume()
        }
    }
}
