import Crypto
import Foundation

/// How a URL becomes the name of its cache entry.
///
/// The default strips what identifies a user or a signature rather than the content (credentials,
/// `token`, `signature`, `Expires` and similar query items, the fragment), so a URL whose signature rotates
/// keeps its cached bytes and no token lands in a file name or in the index.
public struct CacheKeyPolicy: Sendable {
    /// Query item names (compared case-insensitively) that the default policy removes.
    public static let defaultCredentialQueryItems: Set<String> = [
        "token", "access_token", "accesstoken", "auth", "auth_token", "authorization", "apikey", "api_key",
        "key", "sig", "signature", "expires", "policy", "key-pair-id", "hdnts", "hmac", "session",
        "sessionid", "password", "secret", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
        "x-amz-date", "x-amz-expires", "x-amz-algorithm", "x-amz-signedheaders", "x-goog-signature",
        "x-goog-credential", "x-goog-date", "x-goog-expires", "x-goog-algorithm", "x-goog-signedheaders",
    ]

    private let identity: @Sendable (URL) -> String

    /// Keys on the URL with the query items named in `removing` taken out.
    public init(removingQueryItems removing: Set<String> = CacheKeyPolicy.defaultCredentialQueryItems) {
        let lowered = Set(removing.map { $0.lowercased() })
        identity = { url in CacheKeyPolicy.sanitized(url, removing: lowered).absoluteString }
    }

    /// Keys on whatever `identity` returns: two URLs with the same identity share one entry. Use it when a
    /// CDN rotates hosts or paths; the identity is hashed, never stored. It must depend on the URL alone: a
    /// cache remembers the keys of the URLs it used last.
    public init(identity: @escaping @Sendable (URL) -> String) {
        self.identity = identity
    }

    /// The default policy.
    public static let `default` = CacheKeyPolicy()

    /// The entry name for `url`: a SHA-256 of its identity, in hex.
    public func key(for url: URL) -> String {
        Self.digest(identity(url))
    }

    /// The entry name for an identity an app chose itself.
    static func digest(_ identity: String) -> String {
        // Spelled out: `String(format:)` per byte took a fifth of the proxy's CPU under many small requests.
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(2 * SHA256.byteCount)
        for byte in SHA256.hash(data: Data(identity.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// `url` without user, password, fragment and the credential query items of the default policy; the
    /// form the index records for display.
    package static func displayURL(for url: URL) -> String {
        sanitized(url, removing: defaultCredentialQueryItems).absoluteString
    }

    private static func sanitized(_ url: URL, removing: Set<String>) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.user = nil
        components.password = nil
        components.fragment = nil
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if let items = components.percentEncodedQueryItems {
            let kept = items.filter { !removing.contains($0.name.lowercased()) }
            components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
        }
        return components.url ?? url
    }
}
