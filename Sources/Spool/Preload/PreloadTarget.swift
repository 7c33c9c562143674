/// How much of an item to preload.
public enum PreloadTarget: Sendable, Hashable, CustomStringConvertible {
    /// The first bytes of the resource (of an HLS stream: its playlists, keys, initialization sections and
    /// segments until their bytes reach this many).
    case bytes(Int64)
    /// What playing the first seconds needs: found in the file's layout (an MP4's `moov` and sample tables, an
    /// MP3's frame headers, an HLS playlist's segment durations); a file whose layout is not understood gets
    /// `PreloadConfiguration.fallbackBytes`.
    case seconds(Double)

    /// "800000 bytes", "3 s".
    public var description: String {
        switch self {
        case .bytes(let count): "\(count) bytes"
        case .seconds(let seconds): "\(seconds.formatted(maximumFractionDigits: 1)) s"
        }
    }
}

extension Double {
    /// The number with at most `digits` decimals and no trailing zeros, without Foundation's locale.
    func formatted(maximumFractionDigits digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (self * scale).rounded() / scale
        if rounded == rounded.rounded() { return String(Int64(rounded)) }
        var text = String(rounded)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
