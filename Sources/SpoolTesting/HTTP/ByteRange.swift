import Foundation

/// How a `Range` header applies to a representation of a given length (RFC 9110 §14).
enum ByteRange: Equatable {
    /// No usable range: send the whole body with 200.
    case full
    /// Send these bytes with 206.
    case partial(Range<Int64>)
    /// Send 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    /// Evaluates a single-range `bytes=` header. Malformed headers and multi-range requests
    /// fall back to `.full`, which RFC 9110 allows a server to do.
    static func evaluate(_ header: String?, length: Int64) -> ByteRange {
        guard let header else { return .full }
        let pieces = header.split(separator: "=", maxSplits: 1)
        guard pieces.count == 2,
            pieces[0].trimmingCharacters(in: .whitespaces).lowercased() == "bytes"
        else { return .full }
        let spec = pieces[1].trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .full }
        let first = String(spec[..<dash]).trimmingCharacters(in: .whitespaces)
        let last = String(spec[spec.index(after: dash)...]).trimmingCharacters(in: .whitespaces)

        if first.isEmpty {
            // Suffix form "-N": the last N bytes.
            guard let suffix = digits(last) else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)..<length)
        }
        guard let start = digits(first) else { return .full }
        var end = Int64.max
        if !last.isEmpty {
            guard let parsed = digits(last) else { return .full }
            guard parsed >= start else { return .full }
            end = parsed
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start..<(min(end, length - 1) + 1))
    }

    /// A non-negative decimal; values too big for Int64 saturate, since they only ever mean
    /// "past the end".
    private static func digits(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text) ?? Int64.max
    }
}
