import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// The heads of the proxy's responses and what it reads from requests' heads.
extension ProxyResponder {
    /// The conditional and range fields of `head`, for a `ResponsePlan`. `If-Match` and `If-None-Match` are
    /// lists, which a client may split over several lines (RFC 9110, section 5.3): their lines are joined.
    static func planRequest(_ head: HTTPRequestHead) -> ResponsePlan.Request {
        func list(_ name: String) -> String? {
            let lines = head.headers[name]
            return lines.isEmpty ? nil : lines.joined(separator: ", ")
        }
        return ResponsePlan.Request(
            range: head.headers.first(name: "range"), ifRange: head.headers.first(name: "if-range"),
            ifNoneMatch: list("if-none-match"), ifMatch: list("if-match"),
            ifModifiedSince: head.headers.first(name: "if-modified-since"),
            ifUnmodifiedSince: head.headers.first(name: "if-unmodified-since"))
    }

    /// The fields a request may carry once (RFC 9110, section 5.3) that `head` carries more than once, as the
    /// first one's name; `nil` when none does. Which of two `Range` lines a client meant is unknown, and
    /// another server in front of the proxy may have read the other one: such a request is refused (`400`),
    /// not answered with a guess.
    static func repeatedSingleField(_ head: HTTPRequestHead) -> String? {
        ["Range", "If-Range", "If-Modified-Since", "If-Unmodified-Since"].first { head.headers[$0].count > 1 }
    }

    /// The head of the response `plan` describes, with its length, the cache state and the connection fields.
    func responseHead(_ head: HTTPRequestHead, plan: ResponsePlan, cacheState: String?, keepAlive: Bool)
        -> HTTPResponseHead
    {
        var fields = plan.headers + [HeaderField("Content-Length", "\(plan.contentLength)")]
        if let cacheState { fields.append(HeaderField("X-Spool-Cache", cacheState)) }
        fields += connectionFields(head: head, keepAlive: keepAlive)
        return responseHead(head, status: plan.status, fields: fields)
    }

    /// Where a cold request's first origin request should start, so that the one request that brings the
    /// content information also brings the first bytes the client wants: the start of its first range
    /// when that needs no length to resolve.
    static func firstRead(_ head: HTTPRequestHead) -> Range<Int64>? {
        guard let header = head.headers.first(name: "range"),
            let first = RangeSpecifier.parse(header: header)?.first
        else { return nil }
        switch first {
        case .bounded(let from, let last): return last >= from && last < .max ? from..<(last + 1) : nil
        case .from(let from): return from..<Int64.max
        case .suffix: return nil
        }
    }

    /// `Connection: close` when the connection ends after this response; `keep-alive` for HTTP/1.0 clients.
    func connectionFields(head: HTTPRequestHead, keepAlive: Bool) -> [HeaderField] {
        if !keepAlive { return [HeaderField("Connection", "close")] }
        // HTTP/1.0 clients keep the connection only when told so.
        return head.version.minor == 0 ? [HeaderField("Connection", "keep-alive")] : []
    }

    /// A response head in the request's HTTP version.
    func responseHead(_ request: HTTPRequestHead, status: Int, fields: [HeaderField]) -> HTTPResponseHead {
        HTTPResponseHead(
            version: request.version.major == 1 ? request.version : .http1_1,
            status: HTTPResponseStatus(statusCode: status),
            headers: HTTPHeaders(fields.map { ($0.name, $0.value) }))
    }

    /// A multipart boundary.
    static func makeBoundary() -> String {
        // One random number, not one per digit: each is a getrandom call, sixteen of them cost 0.1 ms a request.
        let digits = String(UInt64.random(in: .min ... .max), radix: 16)
        return "spool-" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension ProxyResponder {
    /// The CMCD a player sent with `head`: its target's `CMCD` query item or its
    /// `CMCD-*` header fields.
    static func clientData(of head: HTTPRequestHead) -> CommonMediaClientData? {
        if let query = head.uri.firstIndex(of: "?"),
            let item = URLComponents(string: "/" + head.uri[query...])?.queryItems?.first(where: { $0.name == "CMCD" }),
            let value = item.value, let data = CommonMediaClientData(parsing: value)
        {
            return data
        }
        var fields: [String: String] = [:]
        for (name, value) in head.headers where name.lowercased().hasPrefix("cmcd-") {
            fields[name] = fields[name].map { $0 + "," + value } ?? value
        }
        return fields.isEmpty ? nil : CommonMediaClientData(headerFields: fields)
    }
}
