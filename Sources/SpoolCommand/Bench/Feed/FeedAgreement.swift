import Foundation
import Spool

/// How far the cache's playback reports of a feed pass are from what the player itself saw (`FeedPlayer`):
/// each played item's report is paired with the item by its URL's path, and its time to start with the
/// player's first media response.
///
/// The two clocks differ by what lies between them: ffmpeg's request and the proxy's reading of it, the
/// proxy's write of its first bytes and ffmpeg's reading of them, on a loopback socket of a machine both
/// share. A difference within `startGrain` (or 10 %) is agreement.
///
/// The waits are printed side by side, not compared: a report through the proxy counts the reader's waits on
/// the origin after the item's first byte, which include a start's (the `moov` fetched from a file's end
/// before the first frame), and a proxy cannot see the player's buffer, so it reports no rebuffering
/// (`PlaybackReport.rebufferingTime` is `nil` on that path); the player's figure is the time it fell behind.
struct FeedAgreement {
    /// The difference in a time to start that is agreement however small the times are: a few scheduling
    /// delays of two processes on two busy cores.
    static let startGrain = 0.005
    /// The share of the player's figure a report may differ by.
    static let tolerance = 0.10

    /// The items' start as the player saw it and as its report says, in play order, for items with both.
    let starts: [(player: Double, report: Double)]
    init(_ result: FeedRun.Result) {
        var starts: [(player: Double, report: Double)] = []
        for (path, player) in zip(result.played, result.firstMediaResponse) {
            guard let player,
                let report = result.reports.first(where: { URL(string: $0.item)?.path == path }),
                let start = report.timeToStart
            else { continue }
            starts.append((player, start))
        }
        self.starts = starts
    }

    /// The largest difference between an item's report and the player, in seconds.
    var largestStartDifference: Double? {
        starts.map { abs($0.report - $0.player) }.max()
    }

    /// Whether every item's time to start agrees (within `tolerance` of the player's, or `startGrain`); `false`
    /// when no item had both figures.
    var agrees: Bool {
        !starts.isEmpty
            && starts.allSatisfy { abs($0.report - $0.player) <= max(Self.startGrain, Self.tolerance * $0.player) }
    }
}
