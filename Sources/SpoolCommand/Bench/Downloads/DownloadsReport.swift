import Foundation
import SpoolTesting

/// The downloads benchmark's table for one link: the medians of the passes of each way, beside curl's.
struct DownloadsReport {
    let profile: LinkProfile
    let media: DownloadsMedia
    let ways: [DownloadsRun.Way]
    let results: [DownloadsRun.Way: [DownloadsRun.Result]]

    /// The queue's default: what an app gets.
    static let defaultWay = DownloadsRun.Way.spool(2)

    var table: String {
        let runs = results.values.map(\.count).min() ?? 0
        var lines = [
            "### \(profile): \(media.items.count) items of \(ByteCountText.format(media.items.first?.length ?? 0)), "
                + "median of \(runs) run\(runs == 1 ? "" : "s")",
            "",
            "| measure | " + ways.map(\.description).joined(separator: " | ") + " | goal | met |",
            "|---|" + String(repeating: "---|", count: ways.count + 2),
        ]
        func median(_ way: DownloadsRun.Way, _ figure: (DownloadsRun.Result) -> Double) -> Double {
            let figures = (results[way] ?? []).map(figure).sorted()
            guard !figures.isEmpty else { return .nan }
            let middle = figures.count / 2
            return figures.count % 2 == 1 ? figures[middle] : (figures[middle - 1] + figures[middle]) / 2
        }
        func row(_ title: String, _ text: (DownloadsRun.Way) -> String, goal: String = "", met: Bool? = nil) {
            let mark = met.map { $0 ? "yes" : "**no**" } ?? ""
            lines.append("| \(title) | " + ways.map(text).joined(separator: " | ") + " | \(goal) | \(mark) |")
        }
        let time = { (way: DownloadsRun.Way) in median(way, \.seconds) }
        let first = { (way: DownloadsRun.Way) in median(way, \.firstItemSeconds) }
        let traffic = { (way: DownloadsRun.Way) in
            median(way, { Double($0.linkBytes) }) / Double(media.totalBytes)
        }
        let spool = Self.defaultWay
        row("time to every item", { String(format: "%.2f s", time($0)) })
        row(
            "÷ curl", { String(format: "%.2f", time($0) / time(.curl)) }, goal: "\(spool) ≤ 1.10",
            met: time(spool) / time(.curl) <= 1.10)
        row(
            "time to the first whole item", { String(format: "%.2f s", first($0)) }, goal: "\(spool) ≤ curl",
            met: first(spool) <= first(.curl))
        row(
            "link bytes ÷ the items' bytes", { String(format: "%.3f", traffic($0)) }, goal: "\(spool) ≤ 1.01 × curl",
            met: traffic(spool) <= traffic(.curl) * 1.01)
        return lines.joined(separator: "\n")
    }
}
