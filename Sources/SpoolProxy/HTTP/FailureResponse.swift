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

    /// The answer for an origin or cache failure: 504 when the origin did not answer in time or is
    /// unreachable with nothing cached, 502 for anything else the origin did wrong.
    init(error: any Error) {
        switch error as? SpoolError {
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
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 405: "Method Not Allowed"
        case 413: "Content Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Error"
        }
    }
}
