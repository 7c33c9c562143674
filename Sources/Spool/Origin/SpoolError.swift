import Foundation

/// Why Spool could not deliver bytes. Every failure a reader sees is one of these, or a cancellation.
public enum SpoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL's scheme is not one the origin reads (only `http` and `https` for the HTTP origin).
    case unsupportedScheme(String)
    /// The origin answered with an HTTP status that is not a success, with its `Retry-After` and
    /// `WWW-Authenticate` fields when it sent them: what a player acts on (a `403` from an expired signed URL
    /// makes an app refresh it, a `429` or `503` says when to come back, a `404` is not retried).
    case httpStatus(Int, retryAfter: String? = nil, authenticate: String? = nil)
    /// The origin could not be reached or the transfer broke off (the underlying error's description).
    case network(String)
    /// The origin sent nothing for longer than the timeout: no response head, or no more body bytes; `server`
    /// is its `HOST:PORT` where known.
    case timedOut(server: String? = nil)
    /// The origin's answer contradicts the request or itself (a wrong `Content-Range`, no length).
    case invalidResponse(String)
    /// The body ended before the bytes the origin announced.
    case truncatedBody(expected: Int64, received: Int64)
    /// The requested range starts beyond the resource's end.
    case rangeNotSatisfiable(requested: Int64, length: Int64)
    /// The resource changed at the origin while bytes of the earlier version were being delivered; the
    /// reader must start again rather than join two versions.
    case resourceChanged
    /// The resource is not cached and the origin cannot be asked.
    case notCached
    /// A disk operation failed.
    case storage(String)

    /// A one-line explanation for logs and the command line.
    public var description: String {
        switch self {
        case .unsupportedScheme(let scheme): "unsupported URL scheme '\(scheme)' (only http and https)"
        case .httpStatus(let status, _, _): "origin answered HTTP \(status)"
        case .network(let reason): "network error: \(reason)"
        case .timedOut(let server?):
            "\(server) sent nothing in time (is the network up? the server may be overloaded; the read is tried again "
                + "while the silence is short)"
        case .timedOut(nil): "the origin did not answer in time"
        case .invalidResponse(let reason): "invalid origin response: \(reason)"
        case .truncatedBody(let expected, let received):
            "origin body ended after \(received) of \(expected) bytes"
        case .rangeNotSatisfiable(let requested, let length):
            "offset \(requested) is beyond the resource's \(length) bytes"
        case .resourceChanged: "the resource changed at the origin during the read"
        case .notCached: "not cached, and the origin is unavailable"
        case .storage(let reason): "cache storage error: \(reason)"
        }
    }

    /// Whether the origin went silent (`timedOut`), whichever server.
    var isTimeout: Bool {
        if case .timedOut = self { true } else { false }
    }

    /// Whether trying the same request again may succeed: network failures, short bodies and 5xx answers.
    var isTransient: Bool {
        switch self {
        case .network, .timedOut, .truncatedBody: true
        case .httpStatus(let status, _, _): status >= 500 || status == 408 || status == 429
        default: false
        }
    }
}
