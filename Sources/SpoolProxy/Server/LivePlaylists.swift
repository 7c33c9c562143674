import Foundation
import Spool

/// The newest copy of each live playlist the proxy has, and the reload under way for each.
///
/// Players reload a live playlist every few seconds, several at once (each variant they probe, each
/// rendition): copies younger than half the target duration are served from memory, and one origin request
/// answers every reload that finds an older copy. The cache keeps the copy it fetched first, which is what
/// offline plays get; a stream that has ended (`EXT-X-ENDLIST`) is stored again whole by the caller.
final class LivePlaylists: Sendable {
    /// Origin bytes of a playlist and when they arrived (system uptime).
    struct Copy: Sendable {
        let data: Data
        let info: ContentInfo
        let fetched: TimeInterval
    }

    private struct Slot {
        var copy: Copy?
        var reload: Task<Copy, any Error>?
    }

    private let slots = LockedBox<[String: Slot]>([:])
    /// Copies are a few KB to a few MB; a proxy plays a handful of live streams at a time.
    private static let capacity = 64

    /// The newest copy of the playlist stored under `key`.
    func copy(of key: String) -> Copy? {
        slots.withLock { $0[key]?.copy }
    }

    /// Keeps `copy` as the newest of `key` unless a newer one is there.
    func keep(_ copy: Copy, for key: String) {
        slots.withLock { slots in
            if let newest = slots[key]?.copy, newest.fetched >= copy.fetched { return }
            if slots.count >= Self.capacity, slots[key] == nil,
                let oldest = slots.filter({ $0.value.reload == nil })
                    .min(by: { ($0.value.copy?.fetched ?? 0) < ($1.value.copy?.fetched ?? 0) })?.key
            {
                slots[oldest] = nil
            }
            slots[key, default: Slot()].copy = copy
        }
    }

    /// The copy `fetch` brings, sharing a reload already under way for `key`. The reload runs in its own
    /// task, so that a player hanging up does not fail the others waiting on it; it ends with the origin's
    /// answer or its timeout.
    func reload(_ key: String, fetch: @escaping @Sendable () async throws -> Copy) async throws -> Copy {
        let task = slots.withLock { slots -> Task<Copy, any Error> in
            if let running = slots[key]?.reload { return running }
            let task = Task<Copy, any Error> {
                defer { self.slots.withLock { $0[key]?.reload = nil } }
                let copy = try await fetch()
                self.keep(copy, for: key)
                return copy
            }
            slots[key, default: Slot()].reload = task
            return task
        }
        return try await task.value
    }
}
