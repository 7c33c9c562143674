import Foundation

/// Everything the emulator's threads share, behind one lock: counters, open connections, faults in force and
/// the moment each direction of the link next falls idle.
struct LinkState {
    /// One relayed connection's sockets. They are closed only together with removing the entry, under the
    /// lock, so a fault never touches a descriptor number the kernel has handed out again.
    struct Entry {
        let client: Int32
        var upstream: Int32?
        /// Set by a reset, a failure on either side or stop; the connection's threads then end.
        var aborted = false
    }

    /// Whether a connection may move bytes now.
    enum Gate {
        case go
        case hold(nanoseconds: UInt64)
        case quit
    }

    var stopping = false
    var counters = LinkCounters()
    var connections: [Int: Entry] = [:]
    var nextIndex = 0
    var blackoutUntil: UInt64 = 0
    var stalled: Set<Int> = []
    var stallsPending = 0
    /// Per direction (`LinkDirection.rawValue`), when the shared link finishes sending what it has taken.
    var linkFreeAt: [UInt64] = [0, 0]

    mutating func admit(client fd: Int32) -> Int {
        let index = nextIndex
        nextIndex += 1
        connections[index] = Entry(client: fd)
        counters.connectionsAccepted += 1
        if stallsPending > 0 {
            stallsPending -= 1
            stalled.insert(index)
        }
        return index
    }

    func gate(_ index: Int, now: UInt64, slice: UInt64) -> Gate {
        guard !stopping, let entry = connections[index], !entry.aborted else { return .quit }
        if stalled.contains(index) { return .hold(nanoseconds: slice) }
        if blackoutUntil > now { return .hold(nanoseconds: min(slice, blackoutUntil - now)) }
        return .go
    }

    /// Marks a connection aborted; with `reset`, its sockets will send a reset when closed.
    mutating func abort(_ index: Int, reset: Bool) {
        guard var entry = connections[index] else { return }
        entry.aborted = true
        connections[index] = entry
        if reset {
            POSIXSocket.setResetOnClose(entry.client)
            if let upstream = entry.upstream { POSIXSocket.setResetOnClose(upstream) }
        }
    }

    /// Takes `bytes` onto the link's `direction` after what it already carries: the moment their last bit
    /// has been sent.
    mutating func serialise(_ bytes: Int, direction: Int, now: UInt64, bitsPerSecond: Int) -> UInt64 {
        let start = max(now, linkFreeAt[direction])
        let duration = UInt64(Double(bytes) * 8 / Double(bitsPerSecond) * 1_000_000_000)
        linkFreeAt[direction] = start + duration
        return start + duration
    }

    mutating func resetCounters() {
        counters = LinkCounters()
    }

    /// The counters with `openConnections` filled in from the table, which is its only source of truth.
    var snapshot: LinkCounters {
        var copy = counters
        copy.openConnections = connections.count
        return copy
    }
}
