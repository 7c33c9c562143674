import Foundation

/// A certificate authority of the test's own and a server certificate it signed for `127.0.0.1` and
/// `localhost`, made with the openssl command line into a temporary directory (removed with the value): what
/// an HTTPS origin of the tests and benchmarks presents, and what their clients are told to trust. Nothing is
/// added to the system's trust store.
public final class TestCertificateAuthority: Sendable {
    /// The authority's certificate (PEM): the trust root clients are given.
    public let certificateFile: URL
    /// The server's certificate (PEM) and private key (PEM), for the origin.
    public let serverCertificateFile: URL
    public let serverKeyFile: URL
    private let directory: URL

    /// Makes the authority and the server certificate (P-256 keys): by default for `127.0.0.1` and `localhost`,
    /// valid two days; `serverNames` (`subjectAltName` entries, like `DNS:cdn.example`) and `serverDays` (-1:
    /// expired yesterday) make the certificates a client must refuse. Throws when openssl is missing or fails.
    public init(serverNames: [String] = ["IP:127.0.0.1", "DNS:localhost"], serverDays: Int = 2) throws {
        guard let openssl = ExternalCommand(named: "openssl") else {
            throw ExternalCommand.Failure(description: "openssl is not installed (Debian's openssl package)")
        }
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("spool-ca-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        certificateFile = directory.appendingPathComponent("ca.pem")
        serverCertificateFile = directory.appendingPathComponent("server.pem")
        serverKeyFile = directory.appendingPathComponent("server.key")
        let caKey = directory.appendingPathComponent("ca.key")
        let request = directory.appendingPathComponent("server.csr")
        let extensions = directory.appendingPathComponent("server.ext")
        try Data(
            """
            basicConstraints = critical, CA:FALSE
            keyUsage = critical, digitalSignature
            extendedKeyUsage = serverAuth
            subjectAltName = \(serverNames.joined(separator: ", "))

            """.utf8
        ).write(to: extensions)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + key + [
                "-keyout", caKey.path, "-out", certificateFile.path, "-days", "2", "-subj", "/CN=Spool Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            ["req"] + key + ["-keyout", serverKeyFile.path, "-out", request.path, "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", request.path, "-CA", certificateFile.path, "-CAkey", caKey.path,
                "-CAcreateserial", "-out", serverCertificateFile.path, "-days", "\(serverDays)", "-extfile",
                extensions.path,
            ],
        ]
        for step in steps {
            let output = try openssl.run(step, timeout: 30)
            guard output.status == 0 else {
                try? FileManager.default.removeItem(at: directory)
                throw ExternalCommand.Failure(description: "openssl \(step[0]): \(output.stderr)")
            }
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}
