import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Spool

/// Why a server's certificate was refused, when BoringSSL says only that verification failed: a second
/// handshake that reads the certificate and checks its dates. An expired certificate (a server to renew, or a
/// device's clock to fix) and an unknown authority (a trust root to add) call for different fixes, and a
/// user must be told which. Only on that failure, so it costs nothing otherwise.
enum CertificateDiagnosis {
    /// `failure` with the reason of a refused certificate made precise, where the handshake tells; any other
    /// failure as it is.
    static func refined(_ failure: any Error, url: URL) async -> any Error {
        guard failure as? SpoolError == NetworkFailure.error(.tls(NetworkFailure.untrustedCertificate), url: url),
            let certificate = await leafCertificate(of: url)
        else { return failure }
        let now = time_t(Date().timeIntervalSince1970)
        let reason: String
        if now > certificate.notValidAfter {
            reason = NetworkFailure.expiredCertificate(
                on: Date(timeIntervalSince1970: TimeInterval(certificate.notValidAfter)))
        } else if now < certificate.notValidBefore {
            reason = NetworkFailure.certificateNotYetValid(
                from: Date(timeIntervalSince1970: TimeInterval(certificate.notValidBefore)))
        } else {
            reason = NetworkFailure.unknownAuthority
        }
        return NetworkFailure.error(.tls(reason), url: url)
    }

    /// The certificate the server at `url` presents, from a handshake that trusts nothing and stops once it has
    /// it; `nil` when none comes within 5 s.
    private static func leafCertificate(of url: URL) async -> NIOSSLCertificate? {
        guard let host = url.host else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let found = LockedBox<NIOSSLCertificate?>(nil)
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: isAddress ? nil : host,
                        customVerificationCallback: { certificates, verdict in
                            found.withLock { $0 = certificates.first }
                            verdict.succeed(.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        guard let channel = try? await bootstrap.connect(host: host, port: url.port ?? 443).get() else { return nil }
        // The refused handshake closes the channel; a server that says nothing is left after 5 s.
        channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
        try? await channel.closeFuture.get()
        return found.withLock { $0 }
    }
}
