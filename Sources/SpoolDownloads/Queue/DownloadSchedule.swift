import Foundation
import Spool

/// Decides which downloads of a queue run: a value that the queue alone changes, returning what to do (start,
/// cancel, discard what a removed download stored, write the queue down), so that every decision is tested
/// without a download.
///
/// Downloads start in queue order, at most `maximumConcurrent` tasks at a time; a task cancelled by a pause
/// or a removal still counts until it has ended, so one item never has two. A removed item's bytes are
/// discarded only once its task has ended. What is written down (`persisted`) is the queue in order with each
/// item queued, paused, completed or failed: a running item is written as queued, so after a relaunch (or a
/// crash) it starts again, from its first missing byte.
struct DownloadSchedule: Sendable {
    enum Phase: Sendable, Equatable, Codable {
        case queued
        case running
        case paused
        case completed(bytes: Int64)
        case failed(String)
    }

    struct Entry: Sendable, Equatable, Codable {
        var request: DownloadRequest
        var phase: Phase
    }

    /// How a download's task ended.
    enum Outcome: Sendable, Equatable {
        case completed(bytes: Int64)
        case failed(String)
        /// Cancelled: by a pause, a removal or `stop()`.
        case cancelled
    }

    enum Action: Sendable, Equatable {
        /// Start the item's task.
        case start(String)
        /// Cancel the item's task.
        case cancel(String)
        /// Unpin and remove what the removed request stored: its task has ended.
        case discard(DownloadRequest)
        /// Write the queue down (`persisted`).
        case persist
    }

    let maximumConcurrent: Int
    /// The queue, in order.
    private(set) var entries: [Entry]
    /// Items whose task has not ended, running or winding down.
    private(set) var active: Set<String> = []
    /// Removed items whose task has not ended yet, to discard once it has.
    private var departing: [String: DownloadRequest] = [:]
    private var stopped = false

    /// A schedule over `entries` as written down (none runs yet); call `resume()` to start what is queued.
    init(entries: [Entry], maximumConcurrent: Int) {
        self.entries = entries.map { entry in
            var entry = entry
            if entry.phase == .running { entry.phase = .queued }
            return entry
        }
        self.maximumConcurrent = max(1, maximumConcurrent)
    }

    /// The queue as it is written down: running items as queued.
    var persisted: [Entry] {
        entries.map { entry in
            var entry = entry
            if entry.phase == .running { entry.phase = .queued }
            return entry
        }
    }

    /// Starts what the queue allows: after loading, and after the conditions of a waiting item change nothing
    /// here (they are the task's business).
    mutating func start() -> [Action] {
        reconcile()
    }

    /// Adds `request` at the end; the same id again updates the request of an item that does not run, and
    /// starts a failed one again.
    mutating func add(_ request: DownloadRequest) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.request.id == request.id }) else {
            entries.append(Entry(request: request, phase: .queued))
            return [.persist] + reconcile()
        }
        guard entries[index].phase != .running else { return [] }
        let before = entries[index]
        entries[index].request = request
        if case .failed = entries[index].phase { entries[index].phase = .queued }
        return (entries[index] == before ? [] : [.persist]) + reconcile()
    }

    /// Pauses the item: it stops if it runs, and starts no more until resumed.
    mutating func pause(_ id: String) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.request.id == id }) else { return [] }
        switch entries[index].phase {
        case .running:
            entries[index].phase = .paused
            return [.cancel(id), .persist] + reconcile()
        case .queued:
            entries[index].phase = .paused
            return [.persist] + reconcile()
        case .paused, .completed, .failed:
            return []
        }
    }

    /// Queues a paused or failed item again.
    mutating func resume(_ id: String) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.request.id == id }) else { return [] }
        switch entries[index].phase {
        case .paused, .failed:
            entries[index].phase = .queued
            return [.persist] + reconcile()
        case .queued, .running, .completed:
            return []
        }
    }

    /// Removes the item: it stops if it runs, and what it stored is discarded once its task has ended.
    mutating func remove(_ id: String) -> [Action] {
        guard let index = entries.firstIndex(where: { $0.request.id == id }) else { return [] }
        let entry = entries.remove(at: index)
        guard active.contains(id) else { return [.discard(entry.request), .persist] + reconcile() }
        departing[id] = entry.request
        return [.cancel(id), .persist]
    }

    /// The item's task ended with `outcome`.
    mutating func finished(_ id: String, _ outcome: Outcome) -> [Action] {
        guard active.remove(id) != nil else { return [] }
        var actions: [Action] = []
        if let request = departing.removeValue(forKey: id) {
            actions.append(.discard(request))
        } else if let index = entries.firstIndex(where: { $0.request.id == id }), entries[index].phase == .running {
            switch outcome {
            case .completed(let bytes):
                entries[index].phase = .completed(bytes: bytes)
                actions.append(.persist)
            case .failed(let reason):
                entries[index].phase = .failed(reason)
                actions.append(.persist)
            case .cancelled:
                // Only `stop()` cancels a running item without changing its phase: written down as queued.
                entries[index].phase = .queued
            }
        }
        return actions + reconcile()
    }

    /// The completed items among `ids` are no longer stored whole (`spool rm` or `clear`, another process's, the
    /// system purging the cache directory): they go back to the queue, to be downloaded again.
    mutating func lost(_ ids: Set<String>) -> [Action] {
        var changed = false
        for index in entries.indices where ids.contains(entries[index].request.id) {
            guard case .completed = entries[index].phase else { continue }
            entries[index].phase = .queued
            changed = true
        }
        return changed ? [.persist] + reconcile() : []
    }

    /// Stops every task; nothing starts again. Running items stay queued in what is written down.
    mutating func stop() -> [Action] {
        stopped = true
        return active.sorted().map { .cancel($0) }
    }

    private mutating func reconcile() -> [Action] {
        guard !stopped else { return [] }
        var actions: [Action] = []
        for index in entries.indices where active.count < maximumConcurrent {
            let id = entries[index].request.id
            guard entries[index].phase == .queued, !active.contains(id) else { continue }
            entries[index].phase = .running
            active.insert(id)
            actions.append(.start(id))
        }
        return actions
    }
}
