/// What preloading one item reads: byte ranges of one or more resources (an HLS stream's playlists, keys,
/// sections and segments), in the order a player needs them, and how they were found.
package struct PreloadPlan: Sendable {
    /// A range of one resource.
    package struct Piece: Sendable {
        /// The resource, under the cache key playback uses.
        package var resource: Resource
        /// Its bytes to preload; `nil` for all of it (an HLS segment or key).
        package var range: Range<Int64>?
    }

    /// How the target became byte ranges.
    package enum Basis: Sendable, Equatable, CustomStringConvertible {
        /// The first bytes, as asked.
        case bytes
        /// An MP4's sample tables; `movieAtEnd` when its `moov` follows the media (its tail is read too).
        case mp4(movieAtEnd: Bool)
        /// An MP3's frame headers.
        case mp3
        /// An HLS playlist's segments: `segments` of them, for `variant` (the media playlist preloaded).
        case hls(segments: Int)
        /// The layout was not understood (or the target is in seconds of a live stream): the fallback bytes.
        case fallback

        /// "MP4, moov at end", "HLS, 2 segments".
        package var description: String {
            switch self {
            case .bytes: "bytes"
            case .mp4(let atEnd): atEnd ? "MP4, moov at end" : "MP4"
            case .mp3: "MP3"
            case .hls(let segments): "HLS, \(segments) segment\(segments == 1 ? "" : "s")"
            case .fallback: "layout not understood: fallback bytes"
            }
        }
    }

    /// The pieces, in order.
    package var pieces: [Piece]
    /// How they were found.
    package var basis: Basis
    /// For an HLS stream preloaded by bytes: the segments stop once their bytes reach this many.
    var byteBudget: Int64?
}
