import NIOHTTP1
import Spool

/// A response the proxy sends instead of the resource: a status and a one-line reason as a `text/plain`
/// body. Never cached: the engine only stores bytes of successful origin answers.
struct FailureResponse: Error, Equatable, Sendable {
    /// The status code.
    var status: Int
    /// A short reason, without headers, credentials or anything the client did not send.
    var reason: String
    /// Extra header fields (`Allow` for 405).
    var headers: [HeaderField] = []

    /// The answer for an origin or cache failure: the origin's own status when it refused (4xx, 5xx), with its
    /// `Retry-After` and `WWW-Authenticate` (a player acts on them: refreshes an expired signed URL on 403,
    /// waits on 429 or 503, gives up on 404); 504 when the origin did not answer in time or is unreachable
    /// with nothing cached; 502 for anything else the origin did wrong. The body is the proxy's one-line
    /// reason, never the origin's.
    init(error: any Error) {
        switch error as? SpoolError {
        case .httpStatus(let status, let retryAfter, let authenticate)? where (400..<600).contains(status):
            let fields = [("Retry-After", retryAfter), ("WWW-Authenticate", authenticate)].compactMap { name, value in
                value.map { HeaderField(name, $0) }
            }
            self.init(status: status, reason: "the origin answered \(status)", headers: fields)
        case .timedOut?, .notCached?:
            self.init(status: 504, reason: "\(error)")
        case .storage?:
            self.init(status: 500, reason: "\(error)")
        case let spoolError?:
            self.init(status: 502, reason: spoolError.description)
        case nil:
            self.init(status: 502, reason: "origin failure: \(error)")
        }
    }

    init(status: Int, reason: String, headers: [HeaderField] = []) {
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// The body: the status line's phrase and the reason.
    var body: String { "\(status) \(Self.phrase(for: status)): \(reason)\n" }

    static func phrase(for status: Int) -> String {
        HTTPResponseStatus(statusCode: status).reasonPhrase
    }
}
