import Foundation
import SpoolTesting

/// ffmpeg as the feed's player: it opens an item and plays it in real time (`-re`) for some seconds; the
/// time to its first decoded frame, and how long playback waited for bytes meanwhile.
struct FeedPlayer {
    let ffmpeg: ExternalCommand

    /// What playing one item measured.
    struct Play {
        /// Seconds from starting ffmpeg to its first progress report with a decoded frame.
        var firstFrame: Double
        /// The longest time playback fell behind in one go: how much further the clock moved than the media
        /// between two progress reports, the largest such gap after the first frame.
        var longestWait: Double
    }

    /// Plays `seconds` of `url` at its own pace (`-re`) in one ffmpeg process, as a player opens an item and
    /// plays on: two processes (one for the first frame, one to watch) would cancel the first one's origin
    /// requests between them.
    func play(_ url: URL, seconds: Int) throws -> Play {
        let process = Process()
        process.executableURL = ffmpeg.executable
        process.arguments = [
            "-v", "error", "-nostdin", "-nostats", "-re", "-i", url.absoluteString, "-t", "\(seconds)",
            "-progress", "pipe:1", "-stats_period", "0.02", "-f", "null", "-",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let reports = LockedReports()
        let start = DispatchTime.now().uptimeNanoseconds
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let now = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let text = String(decoding: handle.availableData, as: UTF8.self)
            for line in text.split(separator: "\n") {
                if line.hasPrefix("frame="), let frames = Int(line.dropFirst("frame=".count)), frames > 0 {
                    reports.sawFrame(at: now)
                }
                if line.hasPrefix("out_time_us="), let media = Double(line.dropFirst("out_time_us=".count)) {
                    reports.add(now, media / 1e6)
                }
            }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(TimeInterval(seconds) + 120)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        guard process.terminationStatus == 0, let firstFrame = reports.firstFrame else {
            throw CommandFailure(message: "ffmpeg could not play \(url.absoluteString)")
        }
        // The media clock only advances once the first frames are decoded: count from the first report that
        // moved it.
        let points = reports.points.drop { $0.media <= 0 }
        var longest = 0.0
        for (previous, next) in zip(points, points.dropFirst()) {
            longest = max(longest, (next.wall - previous.wall) - (next.media - previous.media))
        }
        return Play(firstFrame: firstFrame, longestWait: longest)
    }
}

/// Progress reports collected on the pipe's thread.
private final class LockedReports: @unchecked Sendable {
    // @unchecked: every access holds `lock`.
    private let lock = NSLock()
    private var list: [(wall: Double, media: Double)] = []
    private var frame: Double?

    func sawFrame(at wall: Double) {
        lock.lock()
        defer { lock.unlock() }
        if frame == nil { frame = wall }
    }

    var firstFrame: Double? {
        lock.lock()
        defer { lock.unlock() }
        return frame
    }

    func add(_ wall: Double, _ media: Double) {
        lock.lock()
        defer { lock.unlock() }
        list.append((wall, media))
    }

    var points: [(wall: Double, media: Double)] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
