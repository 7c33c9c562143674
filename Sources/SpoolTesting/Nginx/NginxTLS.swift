import Foundation

/// How an `NginxOrigin` speaks HTTPS: the certificate it presents, the TLS versions it accepts and whether it
/// offers HTTP/2 (by ALPN), as CDNs do.
public struct NginxTLS: Sendable {
    /// The TLS versions nginx accepts.
    public enum Version: String, Sendable {
        case tls12 = "TLSv1.2"
        case tls13 = "TLSv1.3"
    }

    /// The authority whose server certificate nginx presents.
    public var authority: TestCertificateAuthority
    /// The TLS version accepted: one, so a measurement says which it measured.
    public var version: Version
    /// Whether HTTP/2 is offered.
    public var http2: Bool

    /// TLS `version` with the certificate `authority` signed; HTTP/2 offered when `http2`.
    public init(authority: TestCertificateAuthority, version: Version = .tls13, http2: Bool = false) {
        self.authority = authority
        self.version = version
        self.http2 = http2
    }
}
