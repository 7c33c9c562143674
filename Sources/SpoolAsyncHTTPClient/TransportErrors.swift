import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import Spool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// AsyncHTTPClient's failures in the terms `HTTPTransport` promises.
enum TransportErrors {
    private static let timeouts: [HTTPClientError] = [
        .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
    ]

    /// `SpoolError.timedOut` for every timeout, `CancellationError` for a cancellation, `SpoolError`s as
    /// they are, and `SpoolError.network` for everything else, saying what happened with which server
    /// (`NetworkFailure`): refused, reset, no such host, TLS and why.
    static func spoolError(_ error: any Error, url: URL) -> any Error {
        if error is CancellationError || error is SpoolError { return error }
        if let clientError = error as? HTTPClientError {
            if clientError == .cancelled { return CancellationError() }
            if timeouts.contains(clientError) { return SpoolError.timedOut(server: NetworkFailure.authority(of: url)) }
            if clientError == .remoteConnectionClosed { return NetworkFailure.error(.reset, url: url) }
        }
        return NetworkFailure.error(kind(of: error), url: url)
    }

    /// What a NIO error means, from its type where NIO says it and from its text where it does not (a connection
    /// failure reaches AsyncHTTPClient's caller inside types this module does not link).
    private static func kind(of error: any Error) -> NetworkFailure.Kind {
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED: return .refused
            case ECONNRESET, EPIPE: return .reset
            case ENETUNREACH, EHOSTUNREACH: return .unreachable
            default: return .other(io.description)
            }
        }
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return .tls(NetworkFailure.certificateForAnotherHost)
        }
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") { return .tls(NetworkFailure.untrustedCertificate) }
        if let tls = error as? NIOSSLError {
            if case .failedToLoadCertificate = tls { return .tls("a trust root file could not be loaded (--ca-file)") }
            return .tls(text)
        }
        if text.contains("errno: \(ECONNREFUSED))") || text.contains("Connection refused") { return .refused }
        if text.hasPrefix("DNS error") || text.contains("NIOConnectionError") && text.contains("DNS") {
            return .unknownHost
        }
        return .other(text)
    }
}
