import Foundation

/// The reversible rewrite that routes an asset's requests to Spool: AVFoundation only asks a resource
/// loader for schemes it cannot load itself, so `https://host/a.mp3` becomes `spool-https://host/a.mp3`.
///
/// Only the scheme changes; host, port, path, query and percent-encoding are kept byte for byte. The
/// scheme is letters and a hyphen, which RFC 3986 and the stricter URL parsing of iOS 17 both accept.
package enum SpoolURLScheme {
    /// What the rewritten scheme starts with.
    package static let prefix = "spool-"

    /// `url` with its scheme rewritten, or `nil` if it has no scheme or is already rewritten.
    package static func wrap(_ url: URL) -> URL? {
        guard let scheme = url.scheme, !scheme.lowercased().hasPrefix(prefix) else { return nil }
        let rest = url.absoluteString.dropFirst(scheme.count)
        return URL(string: prefix + scheme.lowercased() + rest)
    }

    /// The original URL of a rewritten one, or `nil` if `url` was not rewritten by `wrap`.
    package static func unwrap(_ url: URL) -> URL? {
        guard let scheme = url.scheme, scheme.lowercased().hasPrefix(prefix), scheme.count > prefix.count else {
            return nil
        }
        let original = scheme.dropFirst(prefix.count)
        let rest = url.absoluteString.dropFirst(scheme.count)
        return URL(string: String(original) + rest)
    }
}
