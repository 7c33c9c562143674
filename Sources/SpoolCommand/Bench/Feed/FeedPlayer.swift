import Foundation
import Spool
import SpoolTesting

/// ffmpeg as the feed's player: it opens an item and plays it in real time (`-re`) for some seconds; the
/// time to its first decoded frame, how long playback waited for bytes meanwhile, and, from its own HTTP log
/// (`FeedPlayerHTTPLog`), when its first media response began: the player's side of what the cache's
/// playback report measures.
struct FeedPlayer {
    let ffmpeg: ExternalCommand

    /// What playing one item measured.
    struct Play {
        /// Seconds from starting ffmpeg to its first progress report with a decoded frame.
        var firstFrame: Double
        /// The longest time playback fell behind in one go: how much further the clock moved than the media
        /// between two progress reports, the largest such gap after the first frame.
        var longestWait: Double
        /// The time playback fell behind in the waits of at least `PlaybackReports.noticeableWait` after the
        /// first frame, together: what a playback report counts as waits on the origin.
        var waitTime: Double
        /// Seconds from ffmpeg's first HTTP request to the status line of its first response that is not a
        /// playlist, by ffmpeg's log; `nil` when the log did not show one.
        var firstMediaResponse: Double?
    }

    /// Plays `seconds` of `url` at its own pace (`-re`) in one ffmpeg process, as a player opens an item and
    /// plays on: two processes (one for the first frame, one to watch) would cancel the first one's origin
    /// requests between them.
    func play(_ url: URL, seconds: Int) throws -> Play {
        let process = Process()
        process.executableURL = ffmpeg.executable
        process.arguments = [
            // Trace level: ffmpeg logs each HTTP request as it sends it and each response header line as it
            // reads it (a few hundred lines a second of playback, most of them the demuxer's).
            "-v", "trace", "-nostdin", "-nostats", "-re", "-i", url.absoluteString, "-t", "\(seconds)",
            "-progress", "pipe:1", "-stats_period", "0.02", "-f", "null", "-",
        ]
        let pipe = Pipe()
        let logPipe = Pipe()
        process.standardOutput = pipe
        process.standardError = logPipe
        let reports = LockedReports()
        let httpLog = FeedPlayerHTTPLog()
        let start = DispatchTime.now().uptimeNanoseconds
        try process.run()
        // A thread of its own reads the reports with blocking reads until ffmpeg's end closes the pipe.
        // Foundation's `readabilityHandler` crashed libdispatch on Linux once in a full run (a bad pointer in
        // `_dispatch_event_loop_drain`).
        let readerDone = DispatchSemaphore(value: 0)
        let output = pipe.fileHandleForReading
        let reader = Thread {
            Self.readLines(from: output, start: start) { line, now in Self.progress(line, at: now, into: reports) }
            readerDone.signal()
        }
        reader.name = "FeedPlayer progress"
        reader.start()
        let log = logPipe.fileHandleForReading
        let logReader = Thread {
            Self.readLines(from: log, start: start) { line, now in httpLog.read(line, at: now) }
            readerDone.signal()
        }
        logReader.name = "FeedPlayer log"
        logReader.start()
        let deadline = Date().addingTimeInterval(TimeInterval(seconds) + 120)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        guard readerDone.wait(timeout: .now() + 10) == .success, readerDone.wait(timeout: .now() + 10) == .success
        else {
            throw CommandFailure(message: "ffmpeg's progress pipe stayed open after it exited (\(url.absoluteString))")
        }
        guard process.terminationStatus == 0, let firstFrame = reports.firstFrame else {
            throw CommandFailure(message: "ffmpeg could not play \(url.absoluteString)")
        }
        // The media clock only advances once the first frames are decoded: count from the first report that
        // moved it.
        let points = reports.points.drop { $0.media <= 0 }
        var (longest, waited) = (0.0, 0.0)
        for (previous, next) in zip(points, points.dropFirst()) {
            let behind = (next.wall - previous.wall) - (next.media - previous.media)
            longest = max(longest, behind)
            // A wait shows as one gap between reports: ffmpeg reports nothing while a read blocks.
            if behind >= PlaybackReports.noticeableWait { waited += behind }
        }
        return Play(
            firstFrame: firstFrame, longestWait: longest, waitTime: waited,
            firstMediaResponse: httpLog.firstMediaResponse)
    }

    /// Reads the lines of `output` until the end of the stream, handing each to `line` with when it came
    /// (seconds since `start`).
    private static func readLines(
        from output: FileHandle, start: UInt64, _ line: (_ line: String, _ now: Double) -> Void
    ) {
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
                line(String(decoding: pending[..<newline], as: UTF8.self), now)
                pending.removeSubrange(...newline)
            }
        }
    }

    /// Takes in one of ffmpeg's `-progress` lines, which came at `now`.
    private static func progress(_ line: String, at now: Double, into reports: LockedReports) {
        if line.hasPrefix("frame="), let frames = Int(line.dropFirst("frame=".count)), frames > 0 {
            reports.sawFrame(at: now)
        }
        if line.hasPrefix("out_time_us="), let media = Double(line.dropFirst("out_time_us=".count)) {
            reports.add(now, media / 1e6)
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
