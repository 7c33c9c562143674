import Foundation

/// Decides, before anything else looks at a request, whether the proxy answers it at all: the edge every
/// request crosses (`AdmissionHandler` performs what this decides). Pure: a table of cases tests it.
///
/// 1. **Addressed to this proxy.** The `Host` field (and the authority of an absolute-form target) must name
///    the address the connection came in on and its port: `127.0.0.1`, `localhost` or `[::1]` on loopback,
///    the local network address on the shared listener, or the configured host. A page that pointed its own
///    name at 127.0.0.1 (DNS rebinding) names its own host, and is refused with `421`.
/// 2. **On the local network, only shared media** (`SharingGate`): the token prefix, GET or HEAD, media or
///    the ping.
/// 3. **The control API only for its caller.** Every path but media (`/o/`, `/w/`, `/k/`) and the ping (the
///    statistics, the preload and download APIs, and whatever is added later) needs
///    `Authorization: Bearer <SpoolProxy.controlToken>`; `401` otherwise, before its body is read.
///
/// Media paths pass on to the responder, whose mapping checks each URL's proof (`URLSigner`) before anything
/// is read or fetched.
struct RequestAdmission: Sendable {
    /// The host the proxy was configured to listen on (a name or an address), lower-cased.
    let configuredHost: String
    /// The proxy's secrets: the control API's token.
    let secrets: ProxySecrets
    /// The local network's gate, for the shared listener's connections; `nil` on loopback.
    let gate: SharingGate?

    /// The address a connection came in on.
    struct LocalAddress: Sendable, Equatable {
        /// The IP address, without brackets.
        var ip: String
        var port: Int

        /// Whether the address is a loopback one (127.0.0.0/8, `::1`, or IPv4 loopback mapped into IPv6).
        var isLoopback: Bool {
            let ip = ip.lowercased()
            return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
        }
    }

    /// What becomes of a request.
    enum Verdict: Sendable, Equatable {
        /// Answered, with this target (the token prefix of a shared path removed).
        case admit(String)
        case refuse(Refusal)
    }

    /// Why a request is refused.
    enum Refusal: Error, Sendable, Equatable {
        /// No `Host` field, or more than one.
        case noHost
        /// The `Host` (or the target's authority) names another server.
        case misdirected
        /// A refusal of the local network's gate.
        case shared(SharingGate.Refusal)
        /// A control path without the control API's token, or with another.
        case unauthorized

        /// The status, the one-line reason sent, and extra header fields.
        var response: (status: Int, reason: String, fields: [HeaderField]) {
            switch self {
            case .noHost: (400, "a request needs one Host field", [])
            case .misdirected: (421, "not addressed to this proxy (the Host field names another server)", [])
            case .shared(let refusal): (refusal.response.status, refusal.response.reason, [])
            case .unauthorized:
                (
                    401, "the proxy's control API needs Authorization: Bearer <SpoolProxy.controlToken>",
                    [HeaderField("WWW-Authenticate", "Bearer realm=\"spool\"")]
                )
            }
        }
    }

    /// The verdict on a request for `target` with `method`, whose `Host` fields are `hosts` and whose
    /// `Authorization` fields are `authorizations` (looked at for a control path only: media, nearly every
    /// request, costs no look-up), on a connection that came in on `local`.
    func verdict(
        method: String, target: String, hosts: [String], authorizations: @autoclosure () -> [String],
        local: LocalAddress?
    ) -> Verdict {
        guard hosts.count == 1, let host = hosts.first else { return .refuse(.noHost) }
        guard let local, names(host, local: local) else { return .refuse(.misdirected) }
        if let authority = Self.authority(ofAbsoluteTarget: target), !names(authority, local: local) {
            return .refuse(.misdirected)
        }
        var admitted = target
        if let gate {
            switch gate.admit(method: method, target: target) {
            case .success(let rest): admitted = rest
            case .failure(let refusal): return .refuse(.shared(refusal))
            }
        }
        guard !Self.isOpen(ProxyURLMapping.path(of: admitted)) else { return .admit(admitted) }
        let authorizations = authorizations()
        guard authorizations.count == 1, secrets.authorizes(authorizations[0]) else { return .refuse(.unauthorized) }
        return .admit(admitted)
    }

    /// Whether `path` is one anybody on the listener may ask for: media (whose URLs carry their own proof)
    /// and the ping. Everything else is the control API's.
    static func isOpen(_ path: Substring) -> Bool {
        let media = [ProxyURLMapping.prefix, ProxyURLMapping.wholePrefix, ProxyURLMapping.keyPrefix]
        if media.contains(where: { path.hasPrefix("/\($0)/") }) { return true }
        return path.prefix { $0 != "?" && $0 != "#" } == SpoolProxy.pingPath
    }

    /// Whether the authority `value` (`host[:port]`) names this proxy on the connection's address `local`.
    func names(_ value: String, local: LocalAddress) -> Bool {
        guard let (name, port) = Self.split(authority: value.lowercased()), port == local.port else { return false }
        if name == local.ip.lowercased() || name == configuredHost { return true }
        return local.isLoopback && ["127.0.0.1", "localhost", "::1"].contains(name)
    }

    /// `host[:port]` as the host (brackets of an IPv6 literal removed) and the port (80 when absent); `nil`
    /// when it is no authority.
    static func split(authority: String) -> (host: String, port: Int)? {
        let value = authority.trimmingCharacters(in: .whitespaces)
        let host: Substring
        let rest: Substring
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            host = value[value.index(after: value.startIndex)..<close]
            rest = value[value.index(after: close)...]
        } else {
            host = value.prefix { $0 != ":" }
            rest = value.dropFirst(host.count)
        }
        guard !host.isEmpty, !host.contains("@"), !host.contains("/") else { return nil }
        if rest.isEmpty { return (String(host), 80) }
        guard rest.first == ":", let port = Int(rest.dropFirst()), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// The authority of an absolute-form target (`http://127.0.0.1:8080/o/…`), `nil` for an origin-form one.
    static func authority(ofAbsoluteTarget target: String) -> String? {
        guard let schemeEnd = target.range(of: "://"), !target.hasPrefix("/") else { return nil }
        return String(target[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
