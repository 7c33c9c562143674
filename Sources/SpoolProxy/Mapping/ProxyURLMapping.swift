import Foundation

/// How origin URLs become proxy URLs and back.
///
/// A proxy URL is `http://HOST:PORT/o/<proof>/<origin URL>/<file name>`, where `<origin URL>` is the origin
/// URL's text in UTF-8, base64url-encoded without padding (RFC 4648, section 5), `<proof>` is what shows that
/// this proxy made the URL (`URLSigner`: a MAC with the proxy's key over the origin URL), and `<file name>` is
/// the last segment of the origin URL's path, kept so that players guessing the type from the path see `.mp3`
/// or `.mp4`. Every http or https URL survives the round trip: query, percent-encoding and non-ASCII text
/// included, because none of them is ever parsed as part of the proxy's own path.
///
/// A request whose last segments differ from the file name is resolved relative to the origin URL, the way
/// a player resolves a link in a file it was served (a DASH manifest's segments, a playlist's URI the proxy
/// left alone): `/o/<proof>/<manifest URL>/seg1.m4s` stands for the origin's `seg1.m4s` beside the
/// manifest. Only in the same directory or below, on the same scheme, host and port: no `..`, no `.`, no
/// encoded slash, so a signed URL never reaches a parent directory or another server.
package struct ProxyURLMapping: Sendable {
    /// The proxy's address, `http://HOST:PORT`.
    package let baseURL: URL
    /// What every path starts with: empty on loopback, `/s/<token>` for URLs shared on the local network.
    let scope: String
    /// Signs the paths.
    let signer: URLSigner

    /// The first path segment of every proxy URL.
    static let prefix = "o"
    /// The first path segment of a proxy URL whose reads take every byte (what a rewritten playlist names:
    /// segments, keys, init sections, playlists): the cache asks the origin for all of it at once.
    static let wholePrefix = "w"
    /// Like `wholePrefix`, for an HLS key: read whole too, and never named in a log (its URL may be a token).
    static let keyPrefix = "k"

    /// The proxy's ping (`SpoolProxy.pingPath`) at `baseURL`: what anybody may ask, signed by nothing.
    package static func pingURL(at baseURL: URL) -> URL {
        baseURL.appendingPathComponent(String(SpoolProxy.pingPath.dropFirst()))
    }

    /// A mapping for the proxy at `baseURL` (`http://127.0.0.1:8080`) whose URLs are signed with `key`; any
    /// path of `baseURL` is ignored.
    package init(baseURL: URL, key: ProxyURLKey) {
        var components = URLComponents()
        components.scheme = baseURL.scheme ?? "http"
        components.host = baseURL.host
        components.port = baseURL.port
        self.baseURL = components.url ?? baseURL
        scope = ""
        signer = URLSigner(key: key)
    }

    /// A mapping for the proxy listening on `host` and `port` whose URLs are signed with `key`.
    package init(host: String, port: Int, key: ProxyURLKey) {
        self.init(host: host, port: port, scope: "", signer: URLSigner(key: key))
    }

    /// A mapping whose paths start with `scope` (`/s/<token>`, or empty).
    init(host: String, port: Int, scope: String, signer: URLSigner) {
        var components = URLComponents()
        components.scheme = "http"
        // An IPv6 literal needs brackets in a URL.
        components.host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        components.port = port
        baseURL = components.url ?? URL(string: "http://127.0.0.1:\(port)")!
        self.scope = scope
        self.signer = signer
    }

    /// `baseURL` with the scope every path carries: what an event names.
    var scopedBaseURL: URL {
        scope.isEmpty ? baseURL : URL(string: scope, relativeTo: baseURL)?.absoluteURL ?? baseURL
    }

    /// The proxy URL standing for `originURL`. Throws for anything but an http or https URL with a host.
    package func proxyURL(for originURL: URL) throws -> URL {
        let path = scope + (try Self.proxyPath(for: originURL, signer: signer))
        guard let url = URL(string: path, relativeTo: baseURL)?.absoluteURL else {
            throw ProxyURLError.notAnOriginURL(originURL.absoluteString)
        }
        return url
    }

    /// The path of the proxy URL standing for `originURL` (`/o/<proof>/…/name`), signed by `signer` and valid
    /// on any of the proxy's addresses: what a rewritten playlist names. Throws as `proxyURL(for:)` does.
    static func proxyPath(for originURL: URL, whole: Bool = false, key: Bool = false, signer: URLSigner) throws
        -> String
    {
        try validate(originURL)
        let first = key ? keyPrefix : whole ? wholePrefix : prefix
        let encoded = base64URL(originURL.absoluteString)
        let proof = signer.proof(for: Substring(encoded), kind: Substring(first))
        return "/\(first)/\(proof)/\(encoded)/\(fileName(of: originURL))"
    }

    /// Whether a request target is a `/w/…` or `/k/…` one, whose reads take every byte.
    static func asksForWhole(_ target: String) -> Bool {
        let path = path(of: target)
        return path.hasPrefix("/\(wholePrefix)/") || path.hasPrefix("/\(keyPrefix)/")
    }

    /// Whether a request target is a `/k/…` one: an HLS key, which logs do not name.
    static func namesKey(_ target: String) -> Bool {
        path(of: target).hasPrefix("/\(keyPrefix)/")
    }

    /// The path of a request target, also of one in absolute form (`GET http://127.0.0.1:8080/o/…`).
    static func path(of target: String) -> Substring {
        let path = Substring(target)
        guard let schemeEnd = path.range(of: "://") else { return path }
        return path[schemeEnd.upperBound...].drop { $0 != "/" }
    }

    /// The origin URL a proxy request target (`/o/<proof>/…/name.mp3`, optionally absolute) stands for, once
    /// `signer` has checked its proof: `ProxyURLError.forged` when it does not match, before anything else is
    /// made of the origin URL.
    static func originURL(forRequestTarget target: String, signer: URLSigner) throws -> URL {
        var path = path(of: target)
        // The proxy's own query, if a client added one, is not part of the origin URL.
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        let segments = path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard segments.count >= 4, segments[0].isEmpty, [prefix, wholePrefix, keyPrefix].contains(String(segments[1])),
            !segments[3].isEmpty
        else {
            throw ProxyURLError.malformedPath
        }
        let (kind, proof, rest) = (segments[1], segments[2], segments[3])
        let encoded = rest.prefix { $0 != "/" }
        let tail = rest.dropFirst(encoded.count).dropFirst()
        // First: nothing of a path this proxy did not make is decoded, let alone fetched.
        guard signer.verifies(proof, for: encoded, kind: kind) else { throw ProxyURLError.forged }
        guard let text = decodeBase64URL(encoded), let origin = URL(string: text) else {
            throw ProxyURLError.malformedPath
        }
        try validate(origin)
        guard !tail.isEmpty, tail.removingPercentEncoding != fileName(of: origin).removingPercentEncoding else {
            return origin
        }
        return try resolve(String(tail), against: origin)
    }

    /// Accepts http and https URLs with a host, and nothing else (no `file:`, no other schemes).
    static func validate(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ProxyURLError.unsupportedScheme(url.scheme ?? "")
        }
        guard let host = url.host, !host.isEmpty else { throw ProxyURLError.notAnOriginURL(url.absoluteString) }
    }

    /// A relative reference resolved against the origin URL; it must stay in the origin's directory or below,
    /// on its scheme, host and port, so a crafted path cannot turn the proxy towards a parent directory or
    /// another server: no dot segment (raw or percent-encoded), no encoded slash or backslash, no absolute path.
    private static func resolve(_ reference: String, against origin: URL) throws -> URL {
        let path = reference.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let staysBelow = segments.allSatisfy { segment in
            let decoded = segment.removingPercentEncoding ?? String(segment)
            return !segment.isEmpty && decoded != "." && decoded != ".." && !decoded.contains("/")
                && !decoded.contains("\\")
        }
        guard staysBelow, !reference.hasPrefix("/"),
            let resolved = URL(string: reference, relativeTo: origin)?.absoluteURL,
            resolved.scheme?.lowercased() == origin.scheme?.lowercased(),
            resolved.host?.lowercased() == origin.host?.lowercased(),
            resolved.port == origin.port
        else { throw ProxyURLError.malformedPath }
        return resolved
    }

    /// The last segment of the URL's path as it appears in the URL (percent-encoded), or `index` when the
    /// path ends in a slash or is empty.
    static func fileName(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        let last = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard !last.isEmpty, last != ".", last != ".." else { return "index" }
        // Re-encode what a path segment must not carry raw; keep what is already percent-encoded.
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;")
        allowed.insert(charactersIn: "%")
        return last.addingPercentEncoding(withAllowedCharacters: allowed) ?? "index"
    }

    static func base64URL(_ text: String) -> String {
        base64URL(Array(text.utf8))
    }

    /// `byteCount` bytes from the system's random source, base64url-encoded: a token fit for a URL path.
    static func randomBase64URL(byteCount: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL((0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Base64url without padding (RFC 4648, section 5). One pass over Foundation's base64: three
    /// `replacingOccurrences` took 20 µs on Linux, a sixth of what mapping a new request target cost on the
    /// event loop, on the path of every cold request's first byte.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let (plus, slash, pad) = (UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="))
        let standard = Data(bytes).base64EncodedData()
        return String(
            decoding: standard.compactMap {
                $0 == plus ? UInt8(ascii: "-") : $0 == slash ? UInt8(ascii: "_") : $0 == pad ? nil : $0
            },
            as: UTF8.self)
    }

    /// The text `encoded` (base64url, without padding) stands for; `nil` for anything else.
    static func decodeBase64URL(_ encoded: Substring) -> String? {
        var standard: [UInt8] = []
        standard.reserveCapacity(encoded.utf8.count + 3)
        for byte in encoded.utf8 {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            // The standard alphabet's own and padding are not base64url's; base64 refuses anything else.
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): return nil
            default: standard.append(byte)
            }
        }
        standard += repeatElement(UInt8(ascii: "="), count: (4 - standard.count % 4) % 4)
        guard let data = Data(base64Encoded: Data(standard)) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// Why a request target or URL cannot be mapped.
public enum ProxyURLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path is not `/o/<base64url origin URL>/<name>`.
    case malformedPath
    /// The origin URL's scheme is neither http nor https.
    case unsupportedScheme(String)
    /// The text is not an absolute http(s) URL with a host.
    case notAnOriginURL(String)
    /// The path's proof does not match its origin URL: this proxy did not make the URL (another launch's
    /// proxy, another app, a URL changed or cut short).
    case forged

    /// A short reason, fit for a response body or a log line.
    public var description: String {
        switch self {
        case .malformedPath: "not a proxy path: expected /o/<proof>/<base64url origin URL>/<file name>"
        case .unsupportedScheme(let scheme): "unsupported origin scheme '\(scheme)' (only http and https)"
        case .notAnOriginURL: "not an absolute http or https URL with a host"
        case .forged:
            "not a URL this proxy made: its proof does not match (URLs from an earlier launch need the same ProxyURLKey)"
        }
    }
}
