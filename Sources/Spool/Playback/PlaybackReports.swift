import Foundation

/// The playback reports of a cache (`SpoolCache.playback`): one `PlaybackReport` per item played, as each
/// item's playback ends, and their `PlaybackSummary`.
///
/// ```swift
/// Task {
///     for await report in cache.playback.reports() {
///         analytics.log("playback", ["start": report.start.rawValue, "ttfb": report.timeToFirstByte ?? -1])
///     }
/// }
/// let summary = await cache.playback.summary()
/// print(summary.fromCache?.timeToStart?.p50 ?? 0, summary.cold?.timeToStart?.p50 ?? 0)
/// ```
///
/// The latest reports of every process that used the cache directory are kept in it (`playback.json`, at
/// most 500), so `spool stats --playback` shows them; they name items by URL without credentials and hold
/// nothing about the user.
public final class PlaybackReports: Sendable {
    /// The first bytes of an item a report looks at to tell how it started (`PlaybackReport.Start`): about
    /// what a player buffers before it plays a video's first seconds.
    public static let startBytes: Int64 = 512 * 1024
    /// The shortest wait on the origin a report counts (`originWaits`, `originWaitTime`): a quarter of a
    /// second, about what a player with an empty buffer shows as a stall. A reader faster than the link waits
    /// less than that for each chunk, which is no stall.
    public static let noticeableWait: TimeInterval = 0.25
    /// How long the proxy waits after an item's last request before it finishes the item's report.
    public static let idleInterval: TimeInterval = 10

    private let clock: any SpoolClock
    private let file: PlaybackReportFile
    private let queue = BlockingIO.serialQueue(label: "Spool.PlaybackReports")
    private let subscribers = Subscribers<PlaybackReport>()
    /// What preloads and downloads of this process fetched, which reports attribute.
    package let fetchedAhead = FetchedAhead()
    /// This process's reports, newest last, while the file is being written.
    private let latest = LockedBox([PlaybackReport]())

    init(directory: URL, clock: any SpoolClock) {
        self.clock = clock
        file = PlaybackReportFile(directory: directory)
    }

    /// Every report finished from now on, as it is (until the cache closes).
    public func reports() -> AsyncStream<PlaybackReport> {
        subscribers.stream()
    }

    /// The latest reports of every process that used the cache directory, oldest first (at most 500). Reads a
    /// small file, on `BlockingIO`.
    public func recent() async -> [PlaybackReport] {
        let (file, queue) = (file, queue)
        // This process's own reports when the file has none (it could not be written: a full disk).
        let stored = (try? await BlockingIO.run(on: queue) { file.read() }) ?? []
        return stored.isEmpty ? latest.withLock { $0 } : stored
    }

    /// The summary of the `recent()` reports.
    public func summary() async -> PlaybackSummary {
        PlaybackSummary(await recent())
    }

    /// A recording of the playback of `item` (a display URL), whose main resource has key `key`.
    package func recording(item: String, path: PlaybackReport.Path) -> PlaybackRecording {
        PlaybackRecording(
            item: item, path: path, clock: clock, fetchedAhead: fetchedAhead,
            publish: { [weak self] report in self?.add(report) })
    }

    /// Tells the subscribers of `report` and keeps it in the directory.
    private func add(_ report: PlaybackReport) {
        latest.withLock { latest in
            latest.append(report)
            if latest.count > PlaybackReportFile.capacity {
                latest.removeFirst(latest.count - PlaybackReportFile.capacity)
            }
        }
        // Queued before the subscribers hear of it: a `recent()` they call then reads it from the file.
        let file = file
        BlockingIO.start(on: queue) { file.add([report]) }
        subscribers.yield([report])
    }

    /// Waits until the reports finished so far are in the directory (for a process about to exit).
    package func flush() async {
        _ = try? await BlockingIO.run(on: queue) {}
    }
}
