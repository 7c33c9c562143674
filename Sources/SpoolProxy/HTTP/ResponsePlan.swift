import Spool

/// What the proxy answers to one request, decided from the request's headers and the resource's content
/// information alone: status, headers and which bytes the body carries. A value, so every RFC 9110 rule is
/// tested without a socket.
struct ResponsePlan: Equatable, Sendable {
    /// The status code.
    var status: Int
    /// The header fields, in order.
    var headers: [HeaderField]
    /// The bytes of the body; sent for GET, left out for HEAD.
    var body: ResponseBody

    /// The request fields the plan depends on.
    struct Request: Sendable {
        var range: String?
        var ifRange: String?
        var ifNoneMatch: String?
        var ifMatch: String? = nil
        var ifModifiedSince: String? = nil
        var ifUnmodifiedSince: String? = nil
    }

    /// Ranges beyond this count are merged into as few as possible: RFC 9110 (section 14.2) lets a server
    /// coalesce, and many tiny ranges are a known way to make a server work hard for nothing.
    static let maximumParts = 32

    /// The plan for a request of a resource described by `info`; `boundary` separates multipart parts (made
    /// only for a multipart body).
    init(for request: Request, info: ContentInfo, boundary makeBoundary: @autoclosure () -> String) {
        let length = info.length
        var common: [HeaderField] = [HeaderField("Accept-Ranges", "bytes")]
        if let entityTag = info.entityTag { common.append(HeaderField("ETag", entityTag)) }
        if let lastModified = info.lastModified { common.append(HeaderField("Last-Modified", lastModified)) }
        let contentType = info.mimeType ?? "application/octet-stream"

        // RFC 9110, section 13.2.2: If-Match, else If-Unmodified-Since; then If-None-Match, else
        // If-Modified-Since; then If-Range. (The proxy answers GET and HEAD only, where all of them apply.)
        if let ifMatch = request.ifMatch {
            guard Self.strongTagMatches(ifMatch, info.entityTag) else {
                self.init(status: 412, headers: common, body: .none)
                return
            }
        } else if let date = request.ifUnmodifiedSince.flatMap(HTTPDate.parse),
            let modified = info.lastModified.flatMap(HTTPDate.parse), modified > date
        {
            self.init(status: 412, headers: common, body: .none)
            return
        }
        if let ifNoneMatch = request.ifNoneMatch {
            if Self.anyTagMatches(ifNoneMatch, info.entityTag) {
                self.init(status: 304, headers: common, body: .none)
                return
            }
        } else if let date = request.ifModifiedSince.flatMap(HTTPDate.parse),
            let modified = info.lastModified.flatMap(HTTPDate.parse), modified <= date
        {
            self.init(status: 304, headers: common, body: .none)
            return
        }
        var specifiers = request.range.flatMap(RangeSpecifier.parse(header:))
        if specifiers != nil, let ifRange = request.ifRange, !Self.validatorMatches(ifRange, info) {
            specifiers = nil
        }
        guard let specifiers else {
            self.init(
                status: 200, headers: [HeaderField("Content-Type", contentType)] + common,
                body: .bytes(0..<length))
            return
        }
        var ranges = specifiers.compactMap { $0.resolved(length: length) }
        if ranges.isEmpty {
            self.init(
                status: 416, headers: [HeaderField("Content-Range", "bytes */\(length)")] + common, body: .none)
            return
        }
        if ranges.count > 1, ranges.count > Self.maximumParts || Self.overlap(ranges) {
            ranges = ByteRangeSet(ranges).ranges
        }
        if ranges.count == 1, let range = ranges.first {
            self.init(
                status: 206,
                headers: [
                    HeaderField("Content-Type", contentType),
                    HeaderField("Content-Range", Self.contentRange(range, length: length)),
                ] + common,
                body: .bytes(range))
            return
        }
        let boundary = makeBoundary()
        let parts = ranges.map { range in
            MultipartPart(
                header: "\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n"
                    + "Content-Range: \(Self.contentRange(range, length: length))\r\n\r\n",
                range: range)
        }
        self.init(
            status: 206,
            headers: [HeaderField("Content-Type", "multipart/byteranges; boundary=\(boundary)")] + common,
            body: .multipart(parts, closing: "\r\n--\(boundary)--\r\n"))
    }

    init(status: Int, headers: [HeaderField], body: ResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The `Content-Length` of the body (also sent for HEAD: the length a GET would have).
    var contentLength: Int64 { body.length }

    static func contentRange(_ range: Range<Int64>, length: Int64) -> String {
        "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(length)"
    }

    private static func overlap(_ ranges: [Range<Int64>]) -> Bool {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        return zip(sorted, sorted.dropFirst()).contains { $0.upperBound > $1.lowerBound }
    }

    /// `If-Range` (RFC 9110, section 13.1.5): a strong entity tag equal to ours, or a date equal to our
    /// `Last-Modified`. Anything else sends the whole representation, never a range of a different version.
    private static func validatorMatches(_ value: String, _ info: ContentInfo) -> Bool {
        let value = value.trimmingCharacters(in: [" ", "\t"])
        if value.hasPrefix("\"") || value.hasPrefix("W/") {
            guard !value.hasPrefix("W/"), let tag = info.entityTag, !tag.hasPrefix("W/") else { return false }
            return tag == value
        }
        return info.lastModified == value
    }

    /// `If-Match` with the strong comparison (RFC 9110, section 13.1.1): `*` while the resource exists, or a
    /// strong tag equal to ours.
    private static func strongTagMatches(_ list: String, _ entityTag: String?) -> Bool {
        list.split(separator: ",").contains { element in
            let tag = element.trimmingCharacters(in: [" ", "\t"])
            guard tag != "*" else { return true }
            guard let entityTag, !entityTag.hasPrefix("W/"), !tag.hasPrefix("W/") else { return false }
            return tag == entityTag
        }
    }

    /// `If-None-Match` with the weak comparison (RFC 9110, section 13.1.2).
    private static func anyTagMatches(_ list: String, _ entityTag: String?) -> Bool {
        guard let entityTag else { return false }
        let ours = opaqueTag(entityTag)
        return list.split(separator: ",").contains { element in
            let tag = element.trimmingCharacters(in: [" ", "\t"])
            return tag == "*" || opaqueTag(tag) == ours
        }
    }

    private static func opaqueTag(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}

/// One response header field.
struct HeaderField: Equatable, Sendable {
    var name: String
    var value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// The body of a planned response.
enum ResponseBody: Equatable, Sendable {
    /// No body.
    case none
    /// One span of the resource.
    case bytes(Range<Int64>)
    /// `multipart/byteranges`: each part's header then its bytes, then the closing delimiter.
    case multipart([MultipartPart], closing: String)

    /// The number of body bytes.
    var length: Int64 {
        switch self {
        case .none: 0
        case .bytes(let range): range.upperBound - range.lowerBound
        case .multipart(let parts, let closing):
            parts.reduce(Int64(closing.utf8.count)) { $0 + Int64($1.header.utf8.count) + $1.range.count64 }
        }
    }

    /// The spans of the resource the body carries.
    var ranges: [Range<Int64>] {
        switch self {
        case .none: []
        case .bytes(let range): [range]
        case .multipart(let parts, _): parts.map(\.range)
        }
    }
}

/// One part of a `multipart/byteranges` body.
struct MultipartPart: Equatable, Sendable {
    /// The delimiter and part header fields, ending in the blank line.
    var header: String
    /// The bytes of the resource the part carries.
    var range: Range<Int64>
}

extension Range where Bound == Int64 {
    var count64: Int64 { upperBound - lowerBound }
}
