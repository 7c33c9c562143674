import Foundation

/// The parts of an HTTP response head the origin needs, read with case-insensitive header names (some
/// servers send `content-range`, and Foundation does not normalise names on every platform). The one place
/// the origin reads headers, whatever transport carried them.
struct OriginResponseHead: Sendable {
    let status: Int
    /// The URL that answered.
    let finalURL: URL
    /// Whether its connection carries other requests at once (`HTTPTransportResponse.multiplexed`).
    let multiplexed: Bool
    /// By lower-cased name.
    private let headers: [String: String]

    /// The head of `response`; the body stays with the response, so dropping that still cancels it.
    init(_ response: HTTPTransportResponse) {
        status = response.status
        finalURL = response.url
        multiplexed = response.multiplexed
        headers = response.fields
    }

    /// The value of the header `name`, whatever the case it was sent in.
    func value(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// Where a redirect (301, 302, 303, 307, 308) points, resolved against the URL that answered; `nil` for
    /// any other status or without a usable `Location`.
    /// The error an unsuccessful status is, with the fields a client acts on.
    var refusal: SpoolError {
        .httpStatus(status, retryAfter: value("Retry-After"), authenticate: value("WWW-Authenticate"))
    }

    var redirectTarget: URL? {
        guard [301, 302, 303, 307, 308].contains(status), let location = value("Location") else { return nil }
        return URL(string: location.trimmingCharacters(in: .whitespaces), relativeTo: finalURL)?.absoluteURL
    }

    var contentLength: Int64? {
        value("Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
            $0 >= 0 ? $0 : nil
        }
    }

    var contentRange: ContentRange? {
        value("Content-Range").flatMap(ContentRange.init(headerValue:))
    }

    /// The MIME type without parameters, lower-cased.
    var mimeType: String? {
        guard let raw = value("Content-Type") else { return nil }
        let type = raw.split(separator: ";", maxSplits: 1).first.map(String.init) ?? raw
        let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `true` for `Accept-Ranges: bytes`, `false` for `none`, `nil` when the server does not say.
    var advertisesRanges: Bool? {
        guard let value = value("Accept-Ranges")?.lowercased() else { return nil }
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "bytes" }
    }

    /// Content information with `length`, taking type and validators from this head, and the URL that
    /// answered when redirects led away from `requested`.
    func contentInfo(length: Int64, acceptsRanges: Bool, requested: URL) -> ContentInfo {
        ContentInfo(
            length: length,
            mimeType: mimeType,
            acceptsRanges: acceptsRanges,
            entityTag: value("ETag"),
            lastModified: value("Last-Modified"),
            location: finalURL == requested ? nil : finalURL
        )
    }
}

/// A parsed `Content-Range` header: `bytes FIRST-LAST/TOTAL`, `bytes FIRST-LAST/*` or `bytes */TOTAL`.
struct ContentRange: Sendable, Hashable {
    /// The bytes the body holds, half-open; `nil` for the unsatisfied form `bytes */TOTAL`.
    let range: Range<Int64>?
    /// The resource's total length; `nil` for `/*`.
    let total: Int64?

    init?(headerValue: String) {
        let value = headerValue.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes") else { return nil }
        let spec = value.dropFirst(5).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let totalText = parts[1].trimmingCharacters(in: .whitespaces)
        if totalText == "*" {
            total = nil
        } else {
            guard let parsed = Int64(totalText), parsed >= 0 else { return nil }
            total = parsed
        }
        let rangeText = parts[0].trimmingCharacters(in: .whitespaces)
        if rangeText == "*" {
            guard total != nil else { return nil }
            range = nil
            return
        }
        let bounds = rangeText.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
            first >= 0, last >= first
        else { return nil }
        if let total, last >= total { return nil }
        range = first..<(last + 1)
    }
}
