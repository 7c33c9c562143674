import Foundation

/// Values computed from keys, remembered for the keys used last: the memo behind the cache keys of recent
/// URLs (`CacheKeys`) and the proxy's mapping of recent request targets. Past `capacity` keys it starts
/// afresh rather than tracking ages, since a cache or proxy serves a few resources at a time and a miss costs
/// one computation.
package final class RecentValues<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let capacity: Int
    private let values = LockedBox([Key: Value]())

    /// A memo of up to `capacity` keys.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The value of `key`: the one remembered, or else `compute()`'s, remembered when `keep` is true. A
    /// `compute` that throws is not remembered. `compute` runs outside the lock.
    package func value(for key: Key, keep: Bool = true, compute: () throws -> Value) rethrows -> Value {
        if let known = values.withLock({ $0[key] }) { return known }
        let value = try compute()
        guard keep else { return value }
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }
}
