import Foundation

/// A parsed request line plus header fields.
struct HTTPRequestHead: Sendable {
    let method: String
    /// The request target as sent, including any query.
    let target: String
    let version: String
    /// Field names lower-cased; repeated fields joined with ", " as RFC 9110 §5.3 permits.
    let headers: [String: String]

    /// The target without its query, which is what content is looked up by.
    var path: String {
        if let question = target.firstIndex(of: "?") { return String(target[..<question]) }
        return target
    }

    /// Whether the client wants the connection closed after this exchange.
    var wantsClose: Bool {
        let tokens = (headers["connection"] ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return true }
        // HTTP/1.0 closes by default unless keep-alive was asked for.
        return version == "HTTP/1.0" && !tokens.contains("keep-alive")
    }

    /// Parses the bytes before the blank line; nil when the head is malformed.
    init?(bytes: ArraySlice<UInt8>) {
        // Split on bytes: as Characters, "\r\n" is one grapheme and would never match "\n".
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        version = String(parts[2])
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let existing = headers[name] {
                headers[name] = existing + ", " + value
            } else {
                headers[name] = value
            }
        }
        self.headers = headers
    }
}
