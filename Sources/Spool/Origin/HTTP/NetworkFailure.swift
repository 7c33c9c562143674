import Foundation

/// A failed transfer in a user's words: what happened, with which server (`HOST:PORT`), and what to do where
/// there is something to do. Both transports describe their failures through it, so `spool get`, the proxy's
/// `502` bodies and `SpoolError.network` read the same whichever stack failed.
package enum NetworkFailure {
    /// What went wrong.
    package enum Kind: Sendable, Equatable {
        /// The server's address refused the connection: nothing listens on that port.
        case refused
        /// The connection was reset or closed by the other side mid-request.
        case reset
        /// The host name does not resolve.
        case unknownHost
        /// No route to the host or its network.
        case unreachable
        /// No network at all.
        case offline
        /// TLS failed; the reason says how, when the stack tells.
        case tls(String)
        /// Anything else, in the stack's own words.
        case other(String)
    }

    /// `HOST:PORT` of `url`, the scheme's default port when it names none.
    package static func authority(of url: URL) -> String {
        let host = url.host ?? "?"
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// The `SpoolError` for a transfer to `url` that failed with `kind`.
    package static func error(_ kind: Kind, url: URL) -> SpoolError {
        let server = authority(of: url)
        let text: String =
            switch kind {
            case .refused: "cannot connect to \(server): connection refused (is the server running, on that port?)"
            case .reset: "the connection to \(server) was closed by the other side"
            case .unknownHost: "cannot resolve \(url.host ?? "?"): no such host (check the name and the network)"
            case .unreachable: "cannot reach \(server): no route to the host (is the network up?)"
            case .offline: "cannot reach \(server): the device is offline"
            case .tls(let reason): "TLS with \(server) failed: \(reason)"
            case .other(let reason): "\(server): \(reason)"
            }
        return .network(text)
    }

    /// The reason given for a certificate nobody trusted: what a user checks first.
    package static let untrustedCertificate =
        "the server's certificate is not trusted (an unknown authority, or expired or not yet valid; "
        + "a private authority can be trusted with --ca-file or the transport's trust roots)"
    /// The reason given for a certificate signed by an authority nobody here trusts.
    package static let unknownAuthority =
        "the server's certificate is signed by an authority not trusted here (a private authority can be trusted "
        + "with --ca-file or the transport's trust roots)"

    /// The reason given for a certificate past its end (`on`: the day it ended, where known).
    package static func expiredCertificate(on day: Date? = nil) -> String {
        "the server's certificate has expired\(day.map { " (on \(Self.day($0)))" } ?? ""): the server must renew it, "
            + "unless the device's clock is wrong"
    }

    /// The reason given for a certificate before its start (`from`: the day it starts, where known).
    package static func certificateNotYetValid(from day: Date? = nil) -> String {
        "the server's certificate is not valid yet\(day.map { " (from \(Self.day($0)))" } ?? ""): is the device's "
            + "clock right?"
    }

    private static func day(_ date: Date) -> String {
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withFullDate]
        return format.string(from: date)
    }

    /// The reason given for a certificate issued for another name.
    package static let certificateForAnotherHost = "the server's certificate is for another host name"
}
