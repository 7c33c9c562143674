#if !os(watchOS)
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation
import Spool

/// Reads what an `AVPlayerItem` says of its own playback into an asset's playback report: its access log
/// (startup time, stalls, time watched; iOS 4.3) whenever a new entry is added or playback stalls, and once
/// more when the report is finished, if the item is still there.
///
/// `@unchecked Sendable` because `item`, `observers` and `stallsPosted` are touched only under `lock`;
/// `recording` is Sendable.
final class PlayerItemWatch: @unchecked Sendable {
    private let lock = NSLock()
    private weak var item: AVPlayerItem?
    private var observers: [any NSObjectProtocol] = []
    private var stallsPosted = 0
    private let recording: PlaybackRecording

    init(recording: PlaybackRecording) {
        self.recording = recording
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    /// Watches `item` (and no item watched before).
    func watch(_ item: AVPlayerItem) {
        let center = NotificationCenter.default
        let added = [AVPlayerItem.newAccessLogEntryNotification, AVPlayerItem.playbackStalledNotification].map {
            name in
            center.addObserver(forName: name, object: item, queue: nil) { [weak self] notification in
                self?.read(
                    notification.object as? AVPlayerItem,
                    stalled: notification.name == AVPlayerItem.playbackStalledNotification)
            }
        }
        let removed = lock.withLock {
            defer { (self.item, observers, stallsPosted) = (item, added, 0) }
            return observers
        }
        for observer in removed { center.removeObserver(observer) }
    }

    /// Reads the watched item's log now, if it is still there: the report is about to be finished.
    func readNow() {
        let item = lock.withLock { self.item }
        if let item { read(item, stalled: false) }
    }

    private func read(_ item: AVPlayerItem?, stalled: Bool) {
        let stalls = lock.withLock {
            if stalled { stallsPosted += 1 }
            return stallsPosted
        }
        guard let events = item?.accessLog()?.events, !events.isEmpty else {
            if stalls > 0 {
                recording.playerReported(.init(startup: nil, stalls: stalls, rebuffering: nil, playing: nil))
            }
            return
        }
        // Negative figures are unknown ones.
        let startup = events.first.map(\.startupTime).flatMap { $0 >= 0 ? $0 : nil }
        let logged = events.reduce(0) { $0 + max(0, $1.numberOfStalls) }
        let watched = events.reduce(0) { $0 + max(0, $1.durationWatched) }
        // The access log has no time spent stalled: rebuffering stays unknown.
        recording.playerReported(
            .init(startup: startup, stalls: max(logged, stalls), rebuffering: nil, playing: watched))
    }
}
#endif
