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
/// more when the report is finished, if the item is still there; and, on iOS 18 and macOS 15, its metric
/// events (`AVMetrics`), which alone tell the time spent stalled (`PlayerMetricsTally`).
///
/// `@unchecked Sendable` because `item`, `observers`, `stallsPosted`, `logged`, `tally` and `metrics` are
/// touched only under `lock`; `recording` is Sendable.
final class PlayerItemWatch: @unchecked Sendable {
    private let lock = NSLock()
    private weak var item: AVPlayerItem?
    private var observers: [any NSObjectProtocol] = []
    private var stallsPosted = 0
    /// The access log's figures as last read.
    private var logged: PlaybackRecording.PlayerFigures?
    /// The metric events' figures; `nil` where the system publishes none.
    private var tally: PlayerMetricsTally?
    /// The task reading the metric events, and how many items were watched (the last one's events count).
    private var metrics: Task<Void, Never>?
    private var watched = 0
    private let recording: PlaybackRecording

    init(recording: PlaybackRecording) {
        self.recording = recording
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        metrics?.cancel()
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
        let (removed, stopped, generation) = lock.withLock {
            defer { (self.item, observers, stallsPosted, logged, metrics, tally) = (item, added, 0, nil, nil, nil) }
            watched += 1
            return (observers, metrics, watched)
        }
        for observer in removed { center.removeObserver(observer) }
        stopped?.cancel()
        let reading = readMetrics(of: item, generation: generation)
        lock.withLock { if watched == generation { metrics = reading } else { reading?.cancel() } }
    }

    /// Reads the watched item's log now, if it is still there: the report is about to be finished.
    func readNow() {
        let item = lock.withLock { self.item }
        if let item { read(item, stalled: false) }
    }

    private func read(_ item: AVPlayerItem?, stalled: Bool) {
        if stalled { lock.withLock { stallsPosted += 1 } }
        if let events = item?.accessLog()?.events, !events.isEmpty {
            // Negative figures are unknown ones.
            let startup = events.first.map(\.startupTime).flatMap { $0 >= 0 ? $0 : nil }
            let stalls = events.reduce(0) { $0 + max(0, $1.numberOfStalls) }
            let watched = events.reduce(0) { $0 + max(0, $1.durationWatched) }
            // The access log has no time spent stalled.
            let figures = PlaybackRecording.PlayerFigures(
                startup: startup, stalls: stalls, rebuffering: nil, playing: watched)
            lock.withLock { logged = figures }
        }
        report()
    }

    /// Tells the recording what the access log, the stall notifications and the metric events say together.
    private func report() {
        let now = Date()
        let figures = lock.withLock { () -> PlaybackRecording.PlayerFigures? in
            let stalls = max(logged?.stalls ?? 0, stallsPosted, tally?.stalls ?? 0)
            guard logged != nil || stalls > 0 || tally?.startup != nil else { return nil }
            return PlaybackRecording.PlayerFigures(
                startup: logged?.startup ?? tally?.startup, stalls: stalls, rebuffering: tally?.rebuffering(at: now),
                playing: logged?.playing)
        }
        if let figures { recording.playerReported(figures) }
    }

    /// Changes the tally of the metric events of the item watched `generation`th, if it is still watched,
    /// and reports.
    private func tallied(_ generation: Int, _ change: (inout PlayerMetricsTally) -> Void) {
        let changed = lock.withLock {
            guard watched == generation, tally != nil else { return false }
            change(&tally!)
            return true
        }
        if changed { report() }
    }

    /// A task that reads `item`'s metric events into the tally; `nil` where the system has none (before iOS 18
    /// and macOS 15, or an SDK without them).
    private func readMetrics(of item: AVPlayerItem, generation: Int) -> Task<Void, Never>? {
        // `AVMetrics` came with the iOS 18 and macOS 15 SDKs (Xcode 16, Swift 6): older SDKs lack the types.
        #if os(Linux) || (compiler(>=6.0) && canImport(AVFoundation, _version: 2200))
        guard #available(iOS 18, macOS 15, tvOS 18, visionOS 2, *) else { return nil }
        let events = item.allMetrics()
        lock.withLock { if watched == generation { tally = PlayerMetricsTally() } }
        return Task { [weak self] in
            do {
                for try await event in events {
                    guard let self else { return }
                    switch event {
                    case let stall as AVMetricPlayerItemStallEvent:
                        tallied(generation) { $0.stalled(at: stall.date) }
                    case let rate as AVMetricPlayerItemRateChangeEvent where rate.rate > 0 && rate.previousRate == 0:
                        tallied(generation) { $0.resumed(at: rate.date) }
                    case let start as AVMetricPlayerItemInitialLikelyToKeepUpEvent:
                        tallied(generation) { $0.started(after: start.timeTaken) }
                    case let keptUp as AVMetricPlayerItemLikelyToKeepUpEvent:
                        tallied(generation) { $0.resumed(at: keptUp.date) }
                    case let summary as AVMetricPlayerItemPlaybackSummaryEvent:
                        tallied(generation) {
                            $0.summarized(
                                stalls: summary.stallCount, recovering: summary.timeSpentRecoveringFromStall,
                                startup: summary.timeSpentInInitialStartup)
                        }
                    default:
                        continue
                    }
                }
            } catch {
                // The sequence ended with an error: the figures so far stay.
            }
        }
        #else
        return nil
        #endif
    }
}
#endif
