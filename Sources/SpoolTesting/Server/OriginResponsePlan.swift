import Foundation

/// What to answer to one request, decided before anything is written.
struct OriginResponsePlan {
    /// What follows the head.
    enum Body {
        case none
        case text(Data)
        /// A slice of served content; subject to the throttle/drop/short misbehaviours.
        case content(ServedResource, Range<Int64>)

        var length: Int64 {
            switch self {
            case .none: return 0
            case .text(let data): return Int64(data.count)
            case .content(_, let range): return range.upperBound - range.lowerBound
            }
        }
    }

    var status: Int
    /// Fields besides Date, Content-Length and Connection, which the writer adds.
    var headers: [(String, String)]
    var body: Body
    /// Close the connection after this response (and say so with `Connection: close`).
    var closeAfter = false

    /// A short text/plain response, used for errors and redirects.
    static func text(_ status: Int, _ message: String, headers: [(String, String)] = []) -> OriginResponsePlan {
        OriginResponsePlan(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: .text(Data((message + "\n").utf8))
        )
    }
}
