#if canImport(SwiftUI) && os(iOS)
import Spool
import SwiftUI

/// What the cache did for playback: startup with and without cached bytes, stalls, traffic saved, and the
/// latest items' reports.
struct ReportsView: View {
    @ObservedObject var model: ExampleModel

    var body: some View {
        NavigationView {
            List {
                if let summary = model.summary {
                    Section("Startup") {
                        row("Started from the cache", summary.fromCache)
                        row("Partly cached", summary.partlyCached)
                        row("Cold", summary.cold)
                    }
                    Section("Traffic") {
                        Text("From the cache: \(Self.bytes(summary.all.bytesFromCache))")
                        Text("Of those, preloaded or downloaded: \(Self.bytes(summary.all.bytesFromPreloadOrDownload))")
                        Text("From the origin: \(Self.bytes(summary.all.bytesFromOrigin))")
                        Text("Stalls: \(summary.all.stalls ?? 0), waits on the origin: \(summary.all.originWaits)")
                    }
                }
                Section("Latest") {
                    ForEach(Array(model.reports.prefix(30).enumerated()), id: \.offset) { _, report in
                        VStack(alignment: .leading) {
                            Text(URL(string: report.item)?.lastPathComponent ?? report.item)
                            Text(
                                "\(report.start.rawValue), first byte \(Self.milliseconds(report.timeToFirstByte)), "
                                    + "start \(Self.milliseconds(report.timeToStart)), stalls \(report.stalls ?? 0)"
                            )
                            .font(.caption)
                            .foregroundColor(.secondary)
                        }
                    }
                }
            }
            .navigationTitle("Playback")
        }
    }

    private func row(_ title: String, _ group: PlaybackSummary.Group?) -> some View {
        HStack {
            Text(title)
            Spacer()
            Text(group.map { "\($0.items) · start \(Self.milliseconds($0.timeToStart?.p50))" } ?? "none")
                .foregroundColor(.secondary)
        }
    }

    private static func milliseconds(_ seconds: TimeInterval?) -> String {
        seconds.map { "\(Int(($0 * 1000).rounded())) ms" } ?? "-"
    }

    private static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }
}
#endif
