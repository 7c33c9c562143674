import Foundation
import Spool

/// Whether a connection is answering a request, and since when it has not: what the server looks at to choose
/// which connection gives way when it holds as many as it may (`ProxyServer`). Set on the connection's event
/// loop (`IdleConnectionCloser`: a request head read, a response's end written), read by the server under its
/// own lock, so it has a lock of its own, a leaf.
final class ConnectionActivity: Sendable {
    private struct State {
        /// Requests whose responses have not ended (at most one: the pipelining handler holds the next).
        var inProgress = 0
        /// When the connection last began or ended a request (its clock's uptime).
        var since: TimeInterval
    }

    private let state: LockedBox<State>

    init(now: TimeInterval) {
        state = LockedBox(State(since: now))
    }

    /// A request head was read.
    func began(at now: TimeInterval) {
        state.withLock {
            $0.inProgress += 1
            $0.since = now
        }
    }

    /// A response ended.
    func ended(at now: TimeInterval) {
        state.withLock {
            $0.inProgress = max(0, $0.inProgress - 1)
            $0.since = now
        }
    }

    /// When the connection became idle, or `nil` while it answers a request.
    var idleSince: TimeInterval? {
        state.withLock { $0.inProgress == 0 ? $0.since : nil }
    }
}
