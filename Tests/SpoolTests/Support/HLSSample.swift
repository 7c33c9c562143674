import Foundation
import SpoolTesting

/// A small HLS stream written to a directory: a master with a low and a high variant and an audio rendition,
/// each media playlist with an AES key and three 40 kB segments. Choosing `--bandwidth 1M` (or
/// `.bandwidth(atMost: 1_000_000)`) keeps the low variant and the audio: 11 resources in all.
enum HLSSample {
    /// What a choice of the low variant stores.
    static let lowVariant = ["master.m3u8", "low.m3u8", "low.key", "low2.ts", "audio.m3u8", "audio.key", "audio0.ts"]
    /// What it leaves alone.
    static let highVariant = ["high.m3u8", "high.key", "high0.ts"]

    /// Writes the stream into `www`.
    static func write(in www: URL) throws {
        let master = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English, stereo",URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x180,AUDIO="aud"
            low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=3000000,RESOLUTION=1280x720,AUDIO="aud"
            high.m3u8

            """
        try master.write(to: www.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
        for (index, name) in ["low", "high", "audio"].enumerated() {
            var media = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"\(name).key\"\n"
            for segment in 0..<3 {
                try TestContent.writeGenerated(
                    seed: UInt64(10 * index + segment), length: 40_000,
                    to: www.appendingPathComponent("\(name)\(segment).ts"))
                media += "#EXTINF:2,\n\(name)\(segment).ts\n"
            }
            try (media + "#EXT-X-ENDLIST\n").write(
                to: www.appendingPathComponent("\(name).m3u8"), atomically: true, encoding: .utf8)
            try Data(repeating: UInt8(index), count: 16).write(to: www.appendingPathComponent("\(name).key"))
        }
    }
}
