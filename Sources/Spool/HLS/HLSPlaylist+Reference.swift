import Foundation

extension HLSPlaylist {
    /// A URI the playlist names, resolved, with what the playlist says about it: enough to choose a variant,
    /// to read a stream ahead of its player, or to download what playing it needs.
    package struct Reference: Sendable, Equatable {
        /// What a URI is to a player.
        package enum Role: Sendable, Equatable {
            /// A media segment (a URI line of a media playlist).
            case segment
            /// A variant stream's media playlist (the URI line after `EXT-X-STREAM-INF`).
            case variant
            /// An `EXT-X-I-FRAME-STREAM-INF` playlist.
            case iFrameVariant
            /// An `EXT-X-MEDIA` rendition's playlist (alternate audio, subtitles).
            case rendition
            /// An `EXT-X-KEY` key.
            case key
            /// An `EXT-X-SESSION-KEY` key.
            case sessionKey
            /// An `EXT-X-MAP` media initialization section.
            case initSection
            /// A low-latency partial segment (`EXT-X-PART`).
            case part
            /// An `EXT-X-PRELOAD-HINT` resource.
            case preloadHint
            /// An `EXT-X-RENDITION-REPORT` playlist.
            case renditionReport
            /// `EXT-X-SESSION-DATA` JSON.
            case sessionData
            /// A content steering manifest (`EXT-X-CONTENT-STEERING`).
            case contentSteering
        }

        /// The absolute URL.
        package let url: URL
        /// Whether the playlist now names what `map` returned instead.
        package let rewritten: Bool
        /// What the URI is.
        package let role: Role
        /// The attributes of the tag that names it (for a variant, those of its `EXT-X-STREAM-INF`), with
        /// quotes removed: `BANDWIDTH`, `RESOLUTION`, `AUDIO`, `TYPE`, `GROUP-ID`, `METHOD`...
        package let attributes: [String: String]
        /// A media segment's duration in seconds (`EXTINF`).
        package let duration: Double?
        /// The bytes of `url` it stands for (`EXT-X-BYTERANGE`, or an `EXT-X-MAP`'s `BYTERANGE`); `nil` for
        /// the whole resource.
        package let byteRange: Range<Int64>?

        /// A reference as a playlist states it.
        package init(
            url: URL, rewritten: Bool, role: Role, attributes: [String: String] = [:], duration: Double? = nil,
            byteRange: Range<Int64>? = nil
        ) {
            self.url = url
            self.rewritten = rewritten
            self.role = role
            self.attributes = attributes
            self.duration = duration
            self.byteRange = byteRange
        }

        /// `BANDWIDTH`, in bits per second.
        package var bandwidth: Int? { attributes["BANDWIDTH"].flatMap { Int($0) } }

        /// `RESOLUTION` as width and height.
        package var resolution: (width: Int, height: Int)? {
            guard let value = attributes["RESOLUTION"] else { return nil }
            let parts = value.lowercased().split(separator: "x")
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
            return (width, height)
        }
    }

    /// The role of a URI attribute of the tag `name`.
    static func role(ofTag name: String) -> Reference.Role? {
        switch name {
        case "EXT-X-KEY": .key
        case "EXT-X-SESSION-KEY": .sessionKey
        case "EXT-X-MAP": .initSection
        case "EXT-X-MEDIA": .rendition
        case "EXT-X-I-FRAME-STREAM-INF": .iFrameVariant
        case "EXT-X-PART": .part
        case "EXT-X-PRELOAD-HINT": .preloadHint
        case "EXT-X-RENDITION-REPORT": .renditionReport
        case "EXT-X-SESSION-DATA": .sessionData
        case "EXT-X-CONTENT-STEERING": .contentSteering
        default: nil
        }
    }

    /// The attribute list after a tag's colon (`NAME=VALUE` pairs separated by commas; quoted values may hold
    /// commas), with quotes removed. Pairs without `=` are skipped.
    static func attributes(of line: Substring) -> [String: String] {
        guard let colon = line.firstIndex(of: ":") else { return [:] }
        var result: [String: String] = [:]
        var index = line.index(after: colon)
        while index < line.endIndex {
            guard let equals = line[index...].firstIndex(where: { $0 == "=" || $0 == "," }), line[equals] == "="
            else {
                guard let comma = line[index...].firstIndex(of: ",") else { break }
                index = line.index(after: comma)
                continue
            }
            let name = line[index..<equals].trimmingCharacters(in: .whitespaces)
            var valueStart = line.index(after: equals)
            let value: Substring
            if valueStart < line.endIndex, line[valueStart] == "\"" {
                valueStart = line.index(after: valueStart)
                let close = line[valueStart...].firstIndex(of: "\"") ?? line.endIndex
                value = line[valueStart..<close]
                index = close < line.endIndex ? line.index(after: close) : close
            } else {
                let end = line[valueStart...].firstIndex(of: ",") ?? line.endIndex
                value = line[valueStart..<end]
                index = end
            }
            result[name] = value.trimmingCharacters(in: .whitespaces)
            if let comma = line[index...].firstIndex(of: ",") { index = line.index(after: comma) } else { break }
        }
        return result
    }

    /// `LENGTH[@OFFSET]` (`EXT-X-BYTERANGE`, `BYTERANGE=`) as a range; without an offset, the range starts at
    /// `continuing` (the end of the previous segment's range, RFC 8216 4.3.2.2), or 0.
    static func byteRange(_ text: some StringProtocol, continuing: Int64?) -> Range<Int64>? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "@", maxSplits: 1)
        guard let first = parts.first, let length = Int64(first), length >= 0 else { return nil }
        let offset = parts.count == 2 ? Int64(parts[1]) : (continuing ?? 0)
        guard let offset, offset >= 0, offset <= .max - length else { return nil }
        return offset..<(offset + length)
    }
}
