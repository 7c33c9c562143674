import Foundation

/// An origin's "come back later": a `429 Too Many Requests` or a `503 Service Unavailable`, with the wait its
/// `Retry-After` field asks for (RFC 9110, 10.2.3: delay-seconds or an HTTP-date).
struct RetryAfter: Sendable, Equatable {
    /// The status that asked.
    let status: Int
    /// The seconds to wait from now; `nil` when the origin named none (or a form this does not read).
    let seconds: TimeInterval?

    /// The request `error` says to come back later, or `nil` for any other failure. An HTTP-date is compared
    /// with the system's wall clock, as the origin's own is.
    init?(_ error: any Error, now: Date = Date()) {
        guard case SpoolError.httpStatus(let status, let field, _) = error, status == 429 || status == 503 else {
            return nil
        }
        self.status = status
        seconds = field.flatMap { Self.seconds(in: $0, now: now) }
    }

    /// The wait `field` asks for, from `now`.
    static func seconds(in field: String, now: Date) -> TimeInterval? {
        let text = field.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        // An HTTP-date in any of the forms a recipient must read (`HTTPDate`, which the proxy uses too).
        return HTTPDate.parse(text).map { max(0, TimeInterval($0) - now.timeIntervalSince1970) }
    }
}
