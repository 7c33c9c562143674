import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How `HTTPOrigin` follows redirects, the same over every transport.
enum HTTPRedirectPolicy {
    /// More hops than this is a loop or a broken server, not a resource.
    static let maximumHops = 10

    /// The request that follows the redirect `head` answered to `request`, or `nil` when `head` is not a
    /// redirect. It asks for the same bytes of the same version (every header goes along, `Range` and
    /// `If-Range` included) with the same method, except that a 303 turns a GET into a GET without a body.
    /// Credentials go only to `credentialsHost`.
    static func request(
        following head: OriginResponseHead, from request: URLRequest, credentialsHost: String?
    ) throws -> URLRequest? {
        guard let target = head.redirectTarget else { return nil }
        let scheme = target.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", target.host != nil else {
            throw SpoolError.unsupportedScheme(scheme.isEmpty ? target.absoluteString : scheme)
        }
        var next = request
        next.url = target
        if head.status == 303, request.httpMethod != "HEAD" {
            next.httpMethod = "GET"
            next.httpBody = nil
        }
        withholdCredentials(from: &next, unlessSentTo: credentialsHost)
        return next
    }

    /// Removes `Authorization` and `Cookie` from a request to a host other than `host`, as browsers do on
    /// redirects: a token meant for an API must not reach the storage it redirects to (which may even refuse
    /// a signed URL that also carries a token).
    static func withholdCredentials(from request: inout URLRequest, unlessSentTo host: String?) {
        guard request.url?.host?.lowercased() != host?.lowercased() else { return }
        request.setValue(nil, forHTTPHeaderField: "Authorization")
        request.setValue(nil, forHTTPHeaderField: "Cookie")
    }
}
