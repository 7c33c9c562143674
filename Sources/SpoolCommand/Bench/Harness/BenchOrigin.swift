import ArgumentParser
import Foundation
import SpoolTesting

/// How a benchmark's origin speaks: plain HTTP/1.1, or HTTPS (TLS 1.3 or 1.2) offering HTTP/1.1 only or HTTP/2
/// too, as CDNs do. HTTPS origins present a certificate from an authority of the benchmark's own, which every
/// client in the run is told to trust.
struct BenchOrigin: Sendable, CustomStringConvertible {
    /// `--origin`: the protocol the origin offers.
    enum Kind: String, ExpressibleByArgument, CaseIterable, Sendable {
        case http, https, h2
    }

    /// `--tls`: the one TLS version the origin accepts.
    enum TLSVersion: String, ExpressibleByArgument, CaseIterable, Sendable {
        case tls12 = "1.2"
        case tls13 = "1.3"
    }

    var kind: Kind = .http
    var tlsVersion: TLSVersion = .tls13

    /// The origin's kernel send buffer behind an emulated link: 512 KiB, two bandwidth-delay products of the
    /// broadband profile (the largest), as a server's kernel sizes it for such a path. Loopback's own
    /// autotuning grows it to megabytes, which an HTTP/2 reader's reset streams still pushed across the link
    /// (the direct player's session took 12 × the bytes it played; HTTP/1.1 closes and drops them).
    static let sendBufferBehindLink = 512 * 1024

    /// The URL scheme clients use.
    var scheme: String { kind == .http ? "http" : "https" }

    /// How nginx is told to speak, with `authority`'s certificate; `nil` for plain HTTP.
    func nginxTLS(authority: TestCertificateAuthority) -> NginxTLS? {
        guard kind != .http else { return nil }
        return NginxTLS(authority: authority, version: tlsVersion == .tls12 ? .tls12 : .tls13, http2: kind == .h2)
    }

    /// "HTTP/1.1", "HTTPS (TLS 1.3), HTTP/1.1" or "HTTPS (TLS 1.3), HTTP/2 offered".
    var description: String {
        switch kind {
        case .http: "HTTP/1.1"
        case .https: "HTTPS (TLS \(tlsVersion.rawValue)), HTTP/1.1"
        case .h2: "HTTPS (TLS \(tlsVersion.rawValue)), HTTP/2 offered"
        }
    }
}
