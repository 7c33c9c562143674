import Foundation
import Spool

/// `spool stats --playback` as text: the summary by kind of start, then the latest reports.
enum PlaybackTable {
    /// How many of the latest reports the table lists.
    static let listed = 20

    /// The lines of the table for `reports`, oldest first.
    static func lines(for reports: [PlaybackReport]) -> [String] {
        guard !reports.isEmpty else { return ["no playback reported yet"] }
        let summary = PlaybackSummary(reports)
        var lines = [
            row("start", "items", "first byte p50/p90", "start p50/p90", "origin waits", "from cache", "from origin")
        ]
        let groups: [(String, PlaybackSummary.Group?)] = [
            ("all", summary.all), ("from cache", summary.fromCache), ("partly cached", summary.partlyCached),
            ("cold", summary.cold),
        ]
        for case (let name, let group?) in groups {
            lines.append(
                row(
                    name, "\(group.items)", seconds(group.timeToFirstByte), seconds(group.timeToStart),
                    "\(group.originWaits)", ByteCountText.format(group.bytesFromCache),
                    ByteCountText.format(group.bytesFromOrigin)))
        }
        lines.append("")
        lines.append("latest \(min(listed, reports.count)) of \(reports.count):")
        for report in reports.suffix(listed) {
            let firstByte = report.timeToFirstByte.map { String(format: "%.0f ms", $0 * 1000) } ?? "-"
            let stalls = report.stalls.map { ", \($0) stalls" } ?? ""
            lines.append(
                "  \(report.start.rawValue) \(report.path.rawValue) first byte \(firstByte)\(stalls), "
                    + "\(ByteCountText.format(report.bytesFromCache)) from cache, "
                    + "\(ByteCountText.format(report.bytesFromOrigin)) from origin  \(report.item)")
        }
        return lines
    }

    private static func seconds(_ percentiles: PlaybackSummary.Percentiles?) -> String {
        guard let percentiles else { return "-" }
        return String(format: "%.0f/%.0f ms", percentiles.p50 * 1000, percentiles.p90 * 1000)
    }

    private static func row(_ cells: String...) -> String {
        let widths = [14, 6, 19, 19, 13, 11, 11]
        return zip(cells, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }
            .joined(separator: " ")
    }
}
