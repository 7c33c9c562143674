import Foundation
import SpoolTesting
import XCTest

/// Media files written by ffmpeg for layout and preload tests, and what ffprobe says about them.
enum MediaSamples {
    static func tool(_ name: String) throws -> ExternalCommand {
        guard let command = ExternalCommand(named: name) else {
            throw ExternalCommand.Failure(description: "\(name) is not installed; .ci/run installs it")
        }
        return command
    }

    static let hasX264: Bool = {
        guard let ffmpeg = ExternalCommand(named: "ffmpeg"),
            let output = try? ffmpeg.run(["-hide_banner", "-encoders"], timeout: 30)
        else { return false }
        return output.stdoutText.contains(" libx264 ")
    }()

    /// A video with sound of `seconds`: noisy test pattern (so its samples are large) and a sine.
    static func mp4(
        in directory: URL, name: String, seconds: Int, faststart: Bool, size: String = "320x240",
        extra: [String] = []
    ) throws -> URL {
        let file = directory.appendingPathComponent(name)
        let video = hasX264 ? ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"] : ["-c:v", "mpeg4", "-q:v", "4"]
        try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y",
                "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=25:duration=\(seconds)",
                "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:duration=\(seconds)",
                "-vf", "noise=alls=12:allf=t",
            ] + video + ["-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest"]
                + (faststart ? ["-movflags", "+faststart"] : []) + extra + ["-f", "mp4", file.path])
        return file
    }

    /// An MP3 of `seconds` of a sine, with a title (so an ID3v2 tag) and `arguments` for the encoder.
    static func mp3(in directory: URL, name: String, seconds: Int, arguments: [String]) throws -> URL {
        let file = directory.appendingPathComponent(name)
        try run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=44100:duration=\(seconds)", "-metadata", "title=Spool test",
                "-c:a", "libmp3lame",
            ] + arguments + [file.path])
        return file
    }

    /// A packet as ffprobe lists it: stream, decode time from the stream's first packet, position and size.
    struct Packet {
        var stream: Int
        var time: Double
        var position: Int64
        var size: Int64
    }

    static func packets(of file: URL) throws -> [Packet] {
        let output = try tool("ffprobe").run(
            [
                "-v", "error", "-show_entries", "packet=stream_index,dts_time,pts_time,pos,size", "-of", "json",
                file.path,
            ],
            timeout: 60)
        guard output.status == 0,
            let json = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any],
            let list = json["packets"] as? [[String: Any]]
        else { throw ExternalCommand.Failure(description: "ffprobe: \(output.stderr)") }
        var firstTime: [Int: Double] = [:]
        return list.compactMap { packet in
            guard let stream = packet["stream_index"] as? Int,
                let time = Double((packet["dts_time"] ?? packet["pts_time"]) as? String ?? ""),
                let position = Int64(packet["pos"] as? String ?? ""), let size = Int64(packet["size"] as? String ?? "")
            else { return nil }
            let first = firstTime[stream] ?? time
            firstTime[stream] = first
            return Packet(stream: stream, time: time - first, position: position, size: size)
        }
    }

    /// The end of the last packet any stream decodes before `seconds` (at least each stream's first).
    static func mediaEnd(of file: URL, seconds: Double) throws -> Int64 {
        var end: Int64 = 0
        var seen = Set<Int>()
        for packet in try packets(of: file) where packet.time < seconds || !seen.contains(packet.stream) {
            seen.insert(packet.stream)
            end = max(end, packet.position + packet.size)
        }
        return end
    }

    /// The top-level boxes of an MP4: type and offset (64-bit sizes and a last box to the end included);
    /// throws at a malformed box.
    static func topLevelBoxes(of file: URL) throws -> [(type: String, offset: Int64)] {
        let data = try Data(contentsOf: file)
        var boxes: [(String, Int64)] = []
        var offset = 0
        func integer(_ at: Int, _ count: Int) -> UInt64 {
            data[data.startIndex + at..<data.startIndex + at + count].reduce(0) { $0 << 8 | UInt64($1) }
        }
        while offset + 8 <= data.count {
            var size = Int(integer(offset, 4))
            let start = data.startIndex + offset
            let type = String(decoding: data[start + 4..<start + 8], as: UTF8.self)
            if size == 1, offset + 16 <= data.count { size = Int(integer(offset + 8, 8)) }
            if size == 0 { size = data.count - offset }
            guard size >= 8 else {
                throw ExternalCommand.Failure(
                    description: "malformed box \(type) at \(offset) in \(file.lastPathComponent)")
            }
            boxes.append((type, Int64(offset)))
            offset += size
        }
        return boxes
    }

    private static func run(_ name: String, _ arguments: [String]) throws {
        let output = try tool(name).run(arguments, timeout: 120)
        guard output.status == 0 else {
            throw ExternalCommand.Failure(description: "\(name) failed: \(output.stderr)")
        }
    }
}
