import Foundation
import Spool

/// What a request from the local network must carry, and what it may ask for.
///
/// Every URL the proxy hands out for the local network starts with `/s/<token>/`: the token is 128 random
/// bits made once per `SpoolProxy` (per launch of the app), compared in constant time. A request without it,
/// with another token, for anything but media (`/o/`, `/w/`, `/k/` paths) and the ping (never the preload or
/// statistics API) or with another method than GET or HEAD is refused. What passes is answered as on loopback
/// (each URL's proof checked, `allowedHosts` included), with the token prefix stripped; playlists it is sent
/// name `/s/<token>/w/…` paths. `RequestAdmission` asks the gate, after the `Host` check.
struct SharingGate: Sendable {
    /// The first path segment of a shared URL.
    static let prefix = "s"

    /// The token, base64url without padding (22 characters).
    let token: String

    /// A gate with a new random token.
    init() {
        token = ProxyURLMapping.randomBase64URL(byteCount: 16)
    }

    /// `/s/<token>`: what every shared path starts with.
    var scope: String { "/\(Self.prefix)/\(token)" }

    /// The target the proxy answers for `method` and `target` (a request target, origin- or absolute-form):
    /// `target` without the token prefix; or why they are refused.
    func admit(method: String, target: String) -> Result<String, Refusal> {
        let path = ProxyURLMapping.path(of: target)
        let expected = "\(scope)/"
        guard path.utf8.count > expected.utf8.count,
            ConstantTime.equal(path.utf8.prefix(expected.utf8.count), expected.utf8)
        else { return .failure(.noToken) }
        let rest = String(path.dropFirst(expected.count - 1))
        let media = [ProxyURLMapping.prefix, ProxyURLMapping.wholePrefix, ProxyURLMapping.keyPrefix]
        // The ping too: the proxy checks its own shared socket with it.
        guard media.contains(where: { rest.hasPrefix("/\($0)/") }) || rest == SpoolProxy.pingPath else {
            return .failure(.notShared)
        }
        guard method == "GET" || method == "HEAD" else { return .failure(.method) }
        return .success(rest)
    }

    /// Why a request from the local network is refused.
    enum Refusal: Error, Equatable {
        case noToken, method, notShared

        /// The status and the one-line reason sent.
        var response: (status: Int, reason: String) {
            switch self {
            case .noToken: (403, "not a shared URL of this proxy")
            case .method: (405, "only GET and HEAD")
            case .notShared: (403, "only media is shared on the local network")
            }
        }
    }
}
