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

    /// The authorities (`host:port`) a connection's requests may name: worked out once per connection, so that a
    /// request as clients send it (`127.0.0.1:PORT`) costs one look-up in a set.
    struct Authorities: Sendable, Equatable {
        /// The address the connection came in on.
        let local: LocalAddress
        /// The host names that are the proxy's on it, lower-cased, IPv6 literals without brackets.
        let names: Set<String>
        /// `names` with the port, as they appear in a `Host` field (and without it on port 80).
        let exact: Set<String>

        /// The authorities of a connection on `local`, for a proxy configured to listen on `configuredHost`.
        init(local: LocalAddress, configuredHost: String) {
            self.local = local
            var names: Set<String> = [local.ip.lowercased(), configuredHost.lowercased()]
            if local.isLoopback { names.formUnion(["127.0.0.1", "localhost", "::1"]) }
            self.names = names
            let bracketed = names.map { $0.contains(":") ? "[\($0)]" : $0 }
            exact = Set(bracketed.map { "\($0):\(local.port)" } + (local.port == 80 ? bracketed : []))
        }

        /// Whether the authority `value` (`host[:port]`, as a `Host` field holds it) names this proxy.
        func contain(_ value: String) -> Bool {
            if exact.contains(value) { return true }
            // Any other spelling: upper case, surrounding spaces; or not the proxy's at all.
            guard let (name, port) = RequestAdmission.split(authority: value.lowercased()), port == local.port else {
                return false
            }
            return names.contains(name)
        }
    }

    /// The verdict on a request for `target` with `method`, whose `Host` fields are `hosts` and whose
    /// `Authorization` fields are `authorizations` (looked at for a control path only: media, nearly every
    /// request, costs no look-up), on a connection whose own authorities are `authorities` (`nil`: its
    /// address is unknown, and nothing is addressed to it).
    func verdict(
        method: String, target: String, hosts: [String], authorizations: @autoclosure () -> [String],
        authorities: Authorities?
    ) -> Verdict {
        guard hosts.count == 1, let host = hosts.first else { return .refuse(.noHost) }
        guard let authorities, authorities.contain(host) else { return .refuse(.misdirected) }
        if let authority = Self.authority(ofAbsoluteTarget: target), !authorities.contain(authority) {
            return .refuse(.misdirected)
        }
        var admitted = target
        if let gate {
            switch gate.admit(method: method, target: target) {
            case .success(let rest): admitted = rest
            case .failure(let refusal): return .refuse(.shared(refusal))
            }
        }
        guard !Self.isOpen(admitted) else { return .admit(admitted) }
        let authorizations = authorizations()
        guard authorizations.count == 1, secrets.authorizes(authorizations[0]) else { return .refuse(.unauthorized) }
        return .admit(admitted)
    }

    /// Whether `target` asks for what anybody on the listener may: media (whose URLs carry their own proof) and
    /// the ping. Everything else is the control API's. Read as bytes: every request of a player is asked this.
    static func isOpen(_ target: String) -> Bool {
        var path = Substring(target).utf8
        if path.first != UInt8(ascii: "/") { path = ProxyURLMapping.path(of: target).utf8 }
        var bytes = path.makeIterator()
        let (slash, kind, second) = (bytes.next(), bytes.next(), bytes.next())
        if slash == UInt8(ascii: "/"), second == UInt8(ascii: "/"),
            kind == UInt8(ascii: "o") || kind == UInt8(ascii: "w") || kind == UInt8(ascii: "k")
        {
            return true
        }
        let ping = SpoolProxy.pingPath.utf8
        guard path.starts(with: ping) else { return false }
        let next = path.dropFirst(ping.count).first
        return next == nil || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
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

    /// The authority of an absolute-form target (`http://127.0.0.1:8080/o/…`), `nil` for an origin-form one
    /// (which starts with `/`: nearly every request, told by its first byte).
    static func authority(ofAbsoluteTarget target: String) -> String? {
        guard target.utf8.first != UInt8(ascii: "/"), let schemeEnd = target.range(of: "://") else { return nil }
        return String(target[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }
}
