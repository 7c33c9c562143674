// The media the example plays. Replace these URLs with your own: a feed of short MP4 videos, albums of audio
// files, and an HLS stream. Everything else in the example uses Spool's public API only.
#if canImport(SwiftUI) && os(iOS)
import Foundation

/// What the example app plays.
enum SampleCatalog {
    /// A track of an album.
    struct Track: Identifiable, Hashable {
        let title: String
        let url: URL
        var id: URL { url }
    }

    /// An album, downloaded for offline play as a whole.
    struct Album: Identifiable, Hashable {
        let title: String
        let tracks: [Track]
        var id: String { title }
    }

    /// Short videos, swiped through one after another.
    static let feed: [URL] = (1...8).compactMap { URL(string: "https://media.example.com/feed/clip\($0).mp4") }

    /// Albums of a music service.
    static let albums: [Album] = ["Morning", "Evening"].map { name in
        Album(
            title: name,
            tracks: (1...5).compactMap { number in
                URL(string: "https://media.example.com/music/\(name.lowercased())/\(number).mp3").map {
                    Track(title: "\(name) \(number)", url: $0)
                }
            })
    }

    /// An HLS stream, played through the local caching proxy (AVPlayer's resource loader cannot serve HLS).
    static let stream = URL(string: "https://media.example.com/show/master.m3u8")!

    /// The hosts the proxy may fetch from: only the app's own.
    static let hosts: Set<String> = ["media.example.com"]
}
#endif
