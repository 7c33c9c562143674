import Foundation

/// Scenario 8: a real demuxer as the client. ffmpeg copies every packet of an MP4 whose index is at the end
/// (so it reads the start, jumps to the tail and comes back), first read through `spool serve`, against
/// reading it from nginx directly.
struct VideoScenario {
    let rig: BenchRig
    let server: SpoolServer

    func run(progress: (String) -> Void) throws -> BenchRow {
        var row = BenchRow(
            id: "8", title: "ffmpeg remuxes a \(ByteCountText.format(rig.size(.video))) MP4 (moov at end), first read",
            unit: .seconds, higherIsBetter: false, referenceName: "nginx direct")
        for run in 0..<rig.plan.runs {
            progress("ffmpeg through the proxy, run \(run + 1) of \(rig.plan.runs)")
            // A new query string per run is a new, empty entry in the proxy's cache.
            let url = rig.originURL(.video, query: "run=\(run)")
            row.spool.append(try remux(try server.url(for: url)))
            row.reference.append(try remux(rig.directURL(.video)))
        }
        row.notes.append("wall time of `ffmpeg -i URL -c copy -f null -`, process start-up included on both sides")
        return row
    }

    private func remux(_ url: URL) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let output = try rig.tools.ffmpeg.run(
            ["-v", "error", "-nostdin", "-i", url.absoluteString, "-map", "0", "-c", "copy", "-f", "null", "-"],
            timeout: 300)
        guard output.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not read \(url.absoluteString): \(output.stderr)")
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
