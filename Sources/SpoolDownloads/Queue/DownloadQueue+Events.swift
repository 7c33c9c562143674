import Spool
/// How the queue's entries read to an app: their states, and the events between two views of the queue.
extension DownloadQueue {
    /// Where `entry` stands, running items with what their task last reported (`progress`).
    static func item(_ entry: DownloadSchedule.Entry, progress: [String: DownloadState]) -> DownloadItem {
        let state: DownloadState
        switch entry.phase {
        case .queued: state = .queued
        case .running: state = progress[entry.request.id] ?? .queued
        case .paused: state = .paused
        case .completed(let bytes): state = .completed(bytes: bytes)
        case .failed(let reason): state = .failed(reason)
        }
        return DownloadItem(request: entry.request, state: state)
    }

    /// The events between two views of the queue: changed states in queue order, then removals.
    static func changes(
        from before: [(id: String, state: DownloadState)], to after: [(id: String, state: DownloadState)]
    ) -> [DownloadEvent] {
        let old = Dictionary(before.map { ($0.id, $0.state) }, uniquingKeysWith: { first, _ in first })
        let new = Set(after.map(\.id))
        return after.filter { old[$0.id] != $0.state }.map { DownloadEvent(id: $0.id, state: $0.state) }
            + before.filter { !new.contains($0.id) }.map { DownloadEvent(id: $0.id, state: nil) }
    }
}
