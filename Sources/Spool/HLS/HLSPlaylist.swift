import Foundation

/// An HLS playlist (RFC 8216) as a caching proxy needs it: recognised by its content, with every URI a player
/// will fetch rewritten, and everything else byte for byte what the origin sent.
///
/// URIs are the lines that are neither blank nor `#` lines (media segments, and variant playlists after
/// `EXT-X-STREAM-INF`), and the `URI` attribute of the tags that carry one (`uriTags`). A relative URI is
/// resolved against the playlist's URL; the caller's `map` decides what replaces it (`nil` leaves it as the
/// origin wrote it). Line ends (LF or CRLF), a byte-order mark, blank lines, comments and tags this type does
/// not know stay as they are; attribute values keep their quotes, commas inside them included.
package struct HLSPlaylist: Sendable {
    /// The playlist's bytes after rewriting.
    package let data: Data
    /// Whether it is a media playlist without `EXT-X-ENDLIST`: a live one, which the origin keeps changing.
    package let isLive: Bool
    /// `EXT-X-TARGETDURATION`, in seconds, for a media playlist that states it.
    package let targetDuration: Double?
    /// The URIs found (resolved), in order.
    package let references: [Reference]

    /// The tags whose `URI` attribute names something a player fetches (RFC 8216 and its successor draft:
    /// low-latency parts, preload hints and rendition reports; session data; content steering's
    /// `SERVER-URI` is a manifest too).
    package static let uriTags: Set<String> = [
        "EXT-X-KEY", "EXT-X-SESSION-KEY", "EXT-X-MAP", "EXT-X-MEDIA", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-PART",
        "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT", "EXT-X-SESSION-DATA", "EXT-X-CONTENT-STEERING",
    ]

    /// The content types HLS playlists are served with.
    package static let contentTypes: Set<String> = [
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl",
    ]

    /// Whether a resource with this `Content-Type` (parameters ignored) is an HLS playlist by its type.
    package static func isPlaylistType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // Bytes, not Foundation's trimming and lowercasing: the proxy asks this of every cached response it
        // sends, and the string version was 5 % of its CPU under 100 connections.
        let utf8 = contentType.utf8
        var type = utf8[utf8.startIndex..<(utf8.firstIndex(of: UInt8(ascii: ";")) ?? utf8.endIndex)]
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        while let first = type.first, isBlank(first) { type.removeFirst() }
        while let last = type.last, isBlank(last) { type.removeLast() }
        return lowercasedContentTypes.contains { candidate in
            candidate.count == type.count
                && zip(candidate, type).allSatisfy { expected, byte in
                    expected == (UInt8(ascii: "A")...UInt8(ascii: "Z") ~= byte ? byte | 0x20 : byte)
                }
        }
    }

    private static let lowercasedContentTypes = contentTypes.map { Array($0.lowercased().utf8) }

    /// Whether `prefix` (the first bytes of a resource, at least 7 of them to say yes) starts an HLS
    /// playlist: `#EXTM3U`, after an optional UTF-8 byte-order mark.
    /// Whether `url`'s name says HLS playlist (`.m3u8`, `.m3u`): a guess for when the origin cannot be asked.
    package static func namesPlaylist(_ url: URL) -> Bool {
        ["m3u8", "m3u"].contains(url.pathExtension.lowercased())
    }

    package static func startsPlaylist(_ prefix: Data) -> Bool {
        let bytes = Array(prefix.prefix(10))
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        return body.starts(with: Array("#EXTM3U".utf8))
    }

    /// The playlist in `data`, fetched from `url`, with each resolved URI replaced by what `map` returns for
    /// it. `nil` when `data` is not a playlist this type understands (no `#EXTM3U` first line, not UTF-8):
    /// the caller then passes it on unchanged.
    package init?(_ data: Data, url: URL, map: (URL) -> String?) {
        self.init(data, url: url, mapping: { url, _ in map(url) })
    }

    /// The playlist in `data`, fetched from `url`, with each resolved URI replaced by what `mapping` returns
    /// for it and its role (a key may be named differently from a segment, or left alone). `nil` as for
    /// `init(_:url:map:)`.
    package init?(_ data: Data, url: URL, mapping map: (URL, Reference.Role) -> String?) {
        // The byte-order mark is kept aside: decoding may drop it, and it must come back.
        let bom = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data([0xEF, 0xBB, 0xBF]) : Data()
        guard Self.startsPlaylist(data), let text = String(data: data.dropFirst(bom.count), encoding: .utf8) else {
            return nil
        }
        var output = ""
        output.reserveCapacity(text.utf8.count + text.utf8.count / 2)
        var uris: [Reference] = []
        var isMedia = false
        var ended = false
        var target: Double?
        // What the tags before a URI line say about it.
        var duration: Double?
        var variant: [String: String]?
        var pendingRange: Substring?
        var previousRangeEnd: Int64?
        // Lines keep their own ends: split on the scalar "\n" alone (as characters, "\r\n" is one), so "\r"
        // stays with the line it ends.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map(Substring.init)
        for (index, rawLine) in lines.enumerated() {
            if index > 0 { output += "\n" }
            let hasCR = rawLine.hasSuffix("\r")
            let line = hasCR ? rawLine.dropLast() : rawLine
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || (trimmed.hasPrefix("#") && !trimmed.hasPrefix("#EXT")) {
                output += rawLine
                continue
            }
            if trimmed.hasPrefix("#EXT") {
                let name = Self.tagName(trimmed)
                let value = trimmed.dropFirst(name.count + 2)
                switch name {
                case "EXTINF":
                    isMedia = true
                    duration = Double(value.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces))
                case "EXT-X-PART", "EXT-X-MEDIA-SEQUENCE": isMedia = true
                case "EXT-X-TARGETDURATION":
                    isMedia = true
                    target = Double(value.trimmingCharacters(in: .whitespaces))
                case "EXT-X-ENDLIST": ended = true
                case "EXT-X-STREAM-INF": variant = Self.attributes(of: line)
                case "EXT-X-BYTERANGE": pendingRange = value
                default: break
                }
                guard let role = Self.role(ofTag: name),
                    let rewritten = Self.rewriteURIAttributes(
                        in: line, role: role, base: url, map: map, found: &uris)
                else {
                    output += rawLine
                    continue
                }
                output += rewritten + (hasCR ? "\r" : "")
                continue
            }
            // A URI line: what surrounds the URI (spaces, a BOM) stays.
            guard let resolved = Self.resolve(trimmed, against: url) else {
                output += rawLine
                continue
            }
            let role: Reference.Role = variant == nil ? .segment : .variant
            let replacement = map(resolved, role)
            let range = pendingRange.flatMap { Self.byteRange($0, continuing: previousRangeEnd) }
            previousRangeEnd = range?.upperBound
            uris.append(
                Reference(
                    url: resolved, rewritten: replacement != nil, role: role,
                    attributes: variant ?? [:], duration: variant == nil ? duration : nil, byteRange: range))
            (duration, variant, pendingRange) = (nil, nil, nil)
            guard let replacement, let span = line.range(of: trimmed) else {
                output += rawLine
                continue
            }
            output += String(line[..<span.lowerBound]) + replacement + String(line[span.upperBound...])
            if hasCR { output += "\r" }
        }
        self.data = bom + Data(output.utf8)
        isLive = isMedia && !ended
        targetDuration = target
        references = uris
    }

    /// `EXT-X-KEY` of `#EXT-X-KEY:METHOD=…`, `EXT-X-ENDLIST` of `#EXT-X-ENDLIST`.
    private static func tagName(_ line: String) -> String {
        let body = line.dropFirst()
        return String(body.prefix { $0 != ":" })
    }

    /// `line` with the value of each `URI` attribute replaced, or `nil` when nothing in it changes.
    private static func rewriteURIAttributes(
        in line: Substring, role: Reference.Role, base: URL, map: (URL, Reference.Role) -> String?,
        found: inout [Reference]
    ) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let attributes = Self.attributes(of: line)
        let range = role == .initSection ? attributes["BYTERANGE"].flatMap { byteRange($0, continuing: 0) } : nil
        var result = String(line[...colon])
        var changed = false
        var index = line.index(after: colon)
        // Attribute list: NAME=VALUE pairs separated by commas; a quoted value may hold commas.
        while index < line.endIndex {
            let nameEnd = line[index...].firstIndex(where: { $0 == "=" || $0 == "," }) ?? line.endIndex
            let name = line[index..<nameEnd].trimmingCharacters(in: .whitespaces)
            guard nameEnd < line.endIndex, line[nameEnd] == "=" else {
                result += line[index..<nameEnd]
                if nameEnd < line.endIndex { result += "," }
                index = nameEnd < line.endIndex ? line.index(after: nameEnd) : nameEnd
                continue
            }
            result += line[index...nameEnd]
            var valueStart = line.index(after: nameEnd)
            if valueStart < line.endIndex, line[valueStart] == "\"" {
                // Quoted: up to the closing quote (an unclosed one runs to the end of the line).
                let open = valueStart
                valueStart = line.index(after: open)
                let close = line[valueStart...].firstIndex(of: "\"") ?? line.endIndex
                let value = String(line[valueStart..<close])
                var written = value
                if name == "URI" || name == "SERVER-URI", let resolved = resolve(value, against: base) {
                    let replacement = map(resolved, role)
                    found.append(
                        Reference(
                            url: resolved, rewritten: replacement != nil, role: role, attributes: attributes,
                            byteRange: range))
                    if let replacement {
                        written = replacement
                        changed = true
                    }
                }
                result += "\"" + written
                guard close < line.endIndex else { break }
                result += "\""
                index = line.index(after: close)
            } else {
                let end = line[valueStart...].firstIndex(of: ",") ?? line.endIndex
                result += line[valueStart..<end]
                index = end
            }
            if index < line.endIndex, line[index] == "," {
                result += ","
                index = line.index(after: index)
            } else if index < line.endIndex {
                // Anything between a value and the next comma stays as it is.
                let end = line[index...].firstIndex(of: ",") ?? line.endIndex
                result += line[index..<end]
                index = end
            }
        }
        return changed ? result : nil
    }

    /// `text` as an absolute http or https URL, resolved against `base`; `nil` for other schemes (`skd:`,
    /// `data:`) and for text that is no URI reference.
    static func resolve(_ text: String, against base: URL) -> URL? {
        guard let url = URL(string: text, relativeTo: base)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else { return nil }
        return url
    }
}
