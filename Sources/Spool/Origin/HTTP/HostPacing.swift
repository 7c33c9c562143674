import Foundation

/// What an origin host said about how often it may be asked, per host, for every request an `HTTPOrigin`
/// sends: a `429 Too Many Requests` or `503 Service Unavailable` with `Retry-After` (seconds or an HTTP-date)
/// holds every request to that host until then, not only the refused one; and a `429` also sets the rate the
/// host allows, the requests sent within the second before the refused one, which no later second exceeds.
///
/// A request whose turn is further away than `longestWait` is not sent: it fails at once with the host's status,
/// as the origin would have answered, so a player's read fails where waiting would only stall it, while reads of
/// what is cached go on. A host without a refusal is never held.
final class HostPacing: Sendable {
    /// The longest a request waits for its turn before it fails instead: 2 s, a moment a player rides out on
    /// its buffer (as `FetchPolicy.longestRetryAfter`).
    static let longestWait: TimeInterval = 2
    /// The hold after a `429` that names no wait (a `503` without one holds nothing: it may be a moment's).
    static let holdWithoutField: TimeInterval = 1
    /// The window a host's rate is counted over.
    static let window: TimeInterval = 1
    /// What a turn keeps beyond the window: a request's way to the host varies (a queue for a connection, the
    /// link), and two sent a window apart must not arrive closer than that.
    static let margin: TimeInterval = 0.1
    /// At most this many sends are remembered per host, whatever the rate: the count is bounded.
    private static let rememberedSends = 4096

    private struct Host {
        /// When requests may go again (monotonic seconds), and the status that said so.
        var resumeAt: TimeInterval = -.infinity
        var status = 429
        /// The requests a second the host allows, once a `429` said; `nil` before.
        var limit: Int?
        /// When requests were sent (or are due to be) lately, oldest first.
        var sends: [TimeInterval] = []
    }

    private let hosts = LockedBox<[String: Host]>([:])
    private let clock: any SpoolClock

    /// Pacing that tells time and waits by `clock` (its `uptime`; the system's by default), the one a test
    /// drives instead of sleeping.
    init(clock: any SpoolClock = SystemClock()) {
        self.clock = clock
    }

    /// Waits for a turn to send a request to `url`'s host, and takes it; returns when it was taken (for
    /// `refused(_:status:retryAfter:sentAt:)`). Fails with the host's status, sending nothing, when the turn
    /// is further away than `longestWait`, and on cancellation.
    func takeTurn(for url: URL) async throws -> TimeInterval {
        let now = clock.uptime
        let turn = try reserveTurn(for: url, at: now)
        if turn > now { try await clock.sleep(until: turn) }
        return turn
    }

    /// Takes the first turn at `now` or later to send a request to `url`'s host, and returns it; fails as
    /// `takeTurn` does.
    func reserveTurn(for url: URL, at now: TimeInterval) throws -> TimeInterval {
        let key = Self.key(url)
        return try hosts.withLock { hosts -> TimeInterval in
            var host = hosts[key] ?? Host()
            host.sends.removeAll { $0 <= now - Self.window - Self.margin }
            var turn = max(now, host.resumeAt)
            if let limit = host.limit, host.sends.count >= limit {
                // The turn comes when the window before it holds fewer than `limit` sends.
                turn = max(turn, host.sends[host.sends.count - limit] + Self.window + Self.margin)
            }
            guard turn - now <= Self.longestWait else {
                throw SpoolError.httpStatus(host.status, retryAfter: String(Int((turn - now).rounded(.up))))
            }
            if host.sends.count >= Self.rememberedSends { host.sends.removeFirst() }
            host.sends.append(turn)
            hosts[key] = host
            return turn
        }
    }

    /// The host refused a request sent at `sentAt` with `status` (429 or 503) and `retryAfter` (the field's
    /// value, if any): holds its requests until then, and after a `429` allows it no more requests a second than
    /// were sent in the second before that one.
    func refused(_ url: URL, status: Int, retryAfter: String?, sentAt: TimeInterval, now: TimeInterval? = nil) {
        guard status == 429 || status == 503 else { return }
        let now = now ?? clock.uptime
        let asked = retryAfter.flatMap { RetryAfter.seconds(in: $0, now: clock.date) }
        hosts.withLock { hosts in
            var host = hosts[Self.key(url)] ?? Host()
            if let wait = asked ?? (status == 429 ? Self.holdWithoutField : nil) {
                host.resumeAt = max(host.resumeAt, now + wait)
                host.status = status
            }
            if status == 429 {
                let before = host.sends.filter { $0 > sentAt - Self.window && $0 < sentAt }.count
                host.limit = min(host.limit ?? .max, max(1, before))
            }
            hosts[Self.key(url)] = host
        }
    }

    /// The requests a second `url`'s host allows, once it said; for tests.
    func limit(for url: URL) -> Int? {
        hosts.withLock { $0[Self.key(url)]?.limit }
    }

    /// Hosts are told apart by scheme, name and port, as connections are.
    private static func key(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
