/// Entries whose engine is being closed (or whose files removed) outside the cache's map lock: a new engine
/// of the same entry opens only once that is done, so it reads the record the old one left and never a file
/// on its way out.
///
/// `begin` is called with the map's lock held (that lock, then this one; never the other way round).
final class ClosingEntries: Sendable {
    private let closing = LockedBox<[String: Closing]>([:], rank: .closingEntries)

    private struct Closing {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Marks `key` as closing, until `end(_:)`.
    func begin(_ key: String) {
        closing.withLock { $0[key, default: Closing()].count += 1 }
    }

    /// Ends one `begin(_:)` of `key`; wakes those waiting once none is left.
    func end(_ key: String) {
        let waiters = closing.withLock { closing -> [CheckedContinuation<Void, Never>] in
            guard var entry = closing[key] else { return [] }
            entry.count -= 1
            guard entry.count <= 0 else {
                closing[key] = entry
                return []
            }
            closing[key] = nil
            return entry.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `key` is not closing.
    func wait(_ key: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = closing.withLock { closing -> Bool in
                guard closing[key] != nil else { return true }
                closing[key]!.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
