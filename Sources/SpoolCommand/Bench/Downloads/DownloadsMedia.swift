import Foundation
import SpoolTesting

/// The files the downloads benchmark fetches: an album of generated tracks, each of its own seed, so a
/// download is checked against the bytes it should hold.
struct DownloadsMedia {
    struct Item {
        /// The path under the origin's root.
        var path: String
        var length: Int64
        var seed: UInt64

        /// The bytes the origin serves.
        var bytes: Data { TestContent.generatedBytes(seed: seed, range: 0..<length) }
    }

    let items: [Item]

    /// Writes `count` tracks of `length` bytes under `www/album`.
    static func make(in www: URL, count: Int, length: Int64) throws -> DownloadsMedia {
        let album = www.appendingPathComponent("album", isDirectory: true)
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let items = (0..<count).map { Item(path: "album/track\($0 + 1).mp3", length: length, seed: UInt64(900 + $0)) }
        for item in items {
            try TestContent.writeGenerated(
                seed: item.seed, length: item.length, to: www.appendingPathComponent(item.path))
        }
        return DownloadsMedia(items: items)
    }

    /// The bytes of every item together.
    var totalBytes: Int64 { items.reduce(0) { $0 + $1.length } }
}
