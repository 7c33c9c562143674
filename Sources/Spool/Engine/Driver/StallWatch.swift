import Dispatch
import Foundation

/// Ends one try of an origin request when its origin goes silent, or when the request has what it asked for,
/// by cancelling the task the try runs in. A timer, not a task beside the request: a deadline that raced the
/// request in a task group cost a cold first byte two hand-offs between threads (the group's child and the
/// join), and a watchdog task beside the body a third.
///
/// A try is one task (`FetchRunner.startTry`), so a cancelled one is never asked to send again: another try
/// of the same request is a new task. `stop` says why the task was cancelled; a cancellation the watch did
/// not make (the request's readers left) leaves it `nil`.
final class StallWatch: Sendable {
    /// Why the watch cancelled its task.
    enum Stop: Sendable, Equatable {
        /// Nothing arrived for the timeout: the response head or the next body bytes.
        case stalled
        /// The storing side ended (it has all the request asked for, or a write failed): the rest of the body
        /// would not be stored.
        case bodyNotNeeded
    }

    private struct State {
        var task: Task<Void, Never>?
        var lastActivity: TimeInterval
        var armed = false
        var timerPending = false
        var stop: Stop?
    }

    private let timeout: TimeInterval
    /// When the try's host last answered anything on any connection (`LinkMonitor.lastAnswer(for:)`).
    private let hostAnswered: @Sendable () -> TimeInterval?
    /// The longest silence allowed while the host answers other requests.
    private let busyLinkTimeout: TimeInterval
    private let clock: any SpoolClock
    /// The watched server's `HOST:PORT`, for the timeout's message.
    private let server: String?
    private let state: LockedBox<State>
    /// One queue for every watch's timer: it only reads a time and cancels a task.
    private static let queue = DispatchQueue(label: "Spool.StallWatch")

    /// A watch that cancels its task when nothing happens for `timeout` seconds of `clock` while armed, unless
    /// `hostAnswered` says the host answered other requests meanwhile: then the try waits in a queue on a busy
    /// link (many connections share a slow one, and a new connection's first bytes wait behind theirs), and
    /// only a silence of `busyLinkTimeout` stops it. Dropping such a try would throw away what the link was
    /// about to deliver and queue the same bytes again: over a mobile link with eight downloads at once, false
    /// stalls repeated until the reads failed.
    init(
        timeout: TimeInterval, clock: any SpoolClock = SystemClock(), busyLinkTimeout: TimeInterval? = nil,
        hostAnswered: @escaping @Sendable () -> TimeInterval? = { nil }, server: String? = nil
    ) {
        self.server = server
        self.timeout = max(0, timeout)
        self.busyLinkTimeout = max(self.timeout, busyLinkTimeout ?? self.timeout)
        self.hostAnswered = hostAnswered
        self.clock = clock
        state = LockedBox(State(lastActivity: clock.uptime))
    }

    /// Names the task to cancel: the try's own, known only once it exists. A stop that came first cancels it
    /// now.
    func watch(_ task: Task<Void, Never>) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.stop != nil
        }
        if cancelNow { task.cancel() }
    }

    /// Starts (or restarts) timing: the request was sent, or the body was held back on purpose.
    func arm() {
        let schedule = state.withLock { state -> Bool in
            state.lastActivity = clock.uptime
            state.armed = true
            defer { state.timerPending = true }
            return !state.timerPending
        }
        if schedule { scheduleCheck(after: timeout) }
    }

    /// Something arrived: the silence starts again from now.
    func touch() {
        let now = clock.uptime
        state.withLock { $0.lastActivity = now }
    }

    /// Stops timing: the try is over (its timer, if pending, finds nothing to do).
    func disarm() {
        state.withLock { $0.armed = false }
    }

    /// Cancels the try because the rest of its body would not be stored.
    func bodyNotNeeded() {
        end(.bodyNotNeeded)
    }

    /// Why the watch cancelled its task, if it did.
    var stop: Stop? {
        state.withLock { $0.stop }
    }

    /// What `error`, which ended the try, means: `SpoolError.timedOut` when the watch cancelled it as stalled
    /// (the cancellation surfaces as whatever the transport throws), otherwise `error` itself.
    func explained(_ error: any Error) -> any Error {
        stop == .stalled ? SpoolError.timedOut(server: server) : error
    }

    private func end(_ reason: Stop) {
        let task = state.withLock { state -> Task<Void, Never>? in
            guard state.stop == nil else { return nil }
            state.stop = reason
            state.armed = false
            return state.task
        }
        task?.cancel()
    }

    /// Checks after `delay` whether the silence has lasted the timeout; if not, checks again when it would
    /// have. Bytes that keep coming cost one timer per timeout, not one per chunk.
    private func scheduleCheck(after delay: TimeInterval) {
        clock.schedule(at: clock.uptime + max(0, delay), on: Self.queue) { [self] in
            // Before the watch's lock: the monitor's is a leaf too. A look per timeout, not per chunk.
            let answered = busyLinkTimeout > timeout ? hostAnswered() : nil
            let due = state.withLock { state -> TimeInterval? in
                guard state.armed, state.stop == nil else {
                    state.timerPending = false
                    return nil
                }
                let now = clock.uptime
                var left = state.lastActivity + timeout - now
                if left <= 0, let answered, answered + timeout > now {
                    // The host answers others: a queue, not a silence, up to the busy link's bound.
                    left = min(answered + timeout, state.lastActivity + busyLinkTimeout) - now
                }
                if left <= 0 { state.timerPending = false }
                return left
            }
            guard let due else { return }
            if due <= 0 { end(.stalled) } else { scheduleCheck(after: due) }
        }
    }
}
