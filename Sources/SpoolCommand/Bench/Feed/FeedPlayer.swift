import Foundation
import Spool
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
        try process.run()
        // A thread of its own reads the reports with blocking reads until ffmpeg's end closes the pipe.
        // Foundation's `readabilityHandler` crashed libdispatch on Linux once in a full run (a bad pointer in
        // `_dispatch_event_loop_drain`).
        let readerDone = DispatchSemaphore(value: 0)
        let output = pipe.fileHandleForReading
        let reader = Thread {
            Self.readProgress(from: output, start: start, into: reports)
            readerDone.signal()
        }
        reader.name = "FeedPlayer progress"
        reader.start()
        let deadline = Date().addingTimeInterval(TimeInterval(seconds) + 120)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        guard readerDone.wait(timeout: .now() + 10) == .success else {
            throw CommandFailure(message: "ffmpeg's progress pipe stayed open after it exited (\(url.absoluteString))")
        }
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

    /// Reads ffmpeg's `-progress` lines from `output` until the end of the stream, noting when each came.
    private static func readProgress(from output: FileHandle, start: UInt64, into reports: LockedReports) {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(output.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let now = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            pending.append(contentsOf: buffer[0..<count])
            // A read may end inside a line: only whole lines are looked at, the rest waits for the next read.
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.hasPrefix("frame="), let frames = Int(line.dropFirst("frame=".count)), frames > 0 {
                    reports.sawFrame(at: now)
                }
                if line.hasPrefix("out_time_us="), let media = Double(line.dropFirst("out_time_us=".count)) {
                    reports.add(now, media / 1e6)
                }
            }
        }
    }
}

/// Progress reports collected on the pipe's thread.
private final class LockedReports: Sendable {
    private let state = LockedBox<(list: [(wall: Double, media: Double)], frame: Double?)>(([], nil))

    func sawFrame(at wall: Double) {
        state.withLock { state in
            if state.frame == nil { state.frame = wall }
        }
    }

    var firstFrame: Double? {
        state.withLock { $0.frame }
    }

    func add(_ wall: Double, _ media: Double) {
        state.withLock { $0.list.append((wall, media)) }
    }

    var points: [(wall: Double, media: Double)] {
        state.withLock { $0.list }
    }
}
