import Foundation
import SpoolTesting

/// The items of a simulated feed, encoded by ffmpeg into a directory nginx serves: short MP4 videos (every
/// third with its `moov` at the end, as ffmpeg writes by default) and HLS streams of 2 s segments, all at a
/// feed's bit rate (1.5 Mbit/s video, 96 kbit/s audio).
struct FeedMedia {
    /// One item: its path on the origin and its duration.
    struct Item: Sendable {
        var path: String
        var seconds: Int
        var isHLS: Bool
        var movieAtEnd: Bool
    }

    let items: [Item]

    /// Encodes `videos` MP4s and `streams` HLS streams of `durations` seconds (seeded) under `root`, ordered
    /// as a feed (the streams spread among the videos).
    static func make(
        in root: URL, videos: Int, streams: Int, durations: ClosedRange<Int>, seed: UInt64, ffmpeg: ExternalCommand,
        progress: (String) -> Void
    ) throws -> FeedMedia {
        var random = SeededRandom(seed: seed)
        let x264 =
            (try? ffmpeg.run(["-hide_banner", "-encoders"], timeout: 30))?.stdoutText.contains(" libx264 ") == true
        let video = x264 ? ["-c:v", "libx264", "-preset", "veryfast", "-g", "50"] : ["-c:v", "mpeg4", "-g", "50"]
        var mp4s: [Item] = []
        for index in 0..<videos {
            let seconds = Int(random.next(in: UInt64(durations.lowerBound)...UInt64(durations.upperBound)))
            let item = Item(path: "/feed/v\(index).mp4", seconds: seconds, isHLS: false, movieAtEnd: index % 3 == 2)
            progress("encoding feed video \(index + 1) of \(videos) (\(seconds) s)")
            try encode(
                ffmpeg, seconds: seconds, seed: index, video: video,
                output: (item.movieAtEnd ? [] : ["-movflags", "+faststart"]) + [root.path + item.path])
            mp4s.append(item)
        }
        var hls: [Item] = []
        for index in 0..<streams {
            let seconds = Int(random.next(in: UInt64(durations.lowerBound)...UInt64(durations.upperBound)))
            let directory = root.appendingPathComponent("feed/s\(index)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            progress("encoding feed stream \(index + 1) of \(streams) (\(seconds) s)")
            try encode(
                ffmpeg, seconds: seconds, seed: 100 + index, video: video,
                output: [
                    "-f", "hls", "-hls_time", "2", "-hls_list_size", "0", "-hls_playlist_type", "vod",
                    directory.appendingPathComponent("index.m3u8").path,
                ])
            hls.append(Item(path: "/feed/s\(index)/index.m3u8", seconds: seconds, isHLS: true, movieAtEnd: false))
        }
        // The streams at seeded places among the videos.
        var items = mp4s
        for stream in hls { items.insert(stream, at: Int(random.next(in: 0...UInt64(items.count)))) }
        return FeedMedia(items: items)
    }

    private static func encode(
        _ ffmpeg: ExternalCommand, seconds: Int, seed: Int, video: [String], output: [String]
    ) throws {
        let arguments =
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=\(300 + 20 * seed):sample_rate=44100:duration=\(seconds)",
                "-vf", "noise=alls=8:allf=t+u:all_seed=\(seed)",
            ] + video + ["-b:v", "1500k", "-maxrate", "2000k", "-bufsize", "3000k", "-pix_fmt", "yuv420p"]
            + ["-c:a", "aac", "-b:a", "96k", "-shortest"] + output
        let result = try ffmpeg.run(arguments, timeout: 300)
        guard result.status == 0 else {
            throw CommandFailure(message: "ffmpeg could not encode a feed item: \(result.stderr)")
        }
    }
}

/// A small seeded generator (SplitMix64), so a feed and its watch times repeat run after run.
struct SeededRandom {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed &+ 0x9E37_79B9_7F4A_7C15
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    mutating func next(in range: ClosedRange<UInt64>) -> UInt64 {
        range.lowerBound + next() % (range.upperBound - range.lowerBound + 1)
    }
}
