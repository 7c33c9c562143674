import ArgumentParser
import Foundation
import SpoolTesting

/// The options of the benchmarks that run across emulated links (`bench feed`, `bench downloads`): which
/// links, and how the origin speaks.
struct BenchLinkOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Link profiles, comma-separated (default: broadband,mobile).", valueName: "names"))
    var links = "broadband,mobile"

    @Option(
        help: ArgumentHelp(
            "The origin speaks plain HTTP/1.1 (http), HTTPS with HTTP/1.1 (https), or HTTPS offering HTTP/2 (h2).",
            valueName: "protocol"))
    var origin: BenchOrigin.Kind = .http

    @Option(help: ArgumentHelp("With --origin https or h2: the TLS version the origin accepts.", valueName: "version"))
    var tls: BenchOrigin.TLSVersion = .tls13

    func validate() throws {
        if origin == .http, tls != .tls13 { throw ValidationError("--tls needs --origin https or h2") }
    }

    /// The link profiles named.
    func profiles() throws -> [LinkProfile] {
        try links.split(separator: ",").map { name in
            guard let profile = LinkProfile.named(String(name)) else {
                throw ValidationError("unknown link profile '\(name)'")
            }
            return profile
        }
    }

    /// How the origin speaks.
    var benchOrigin: BenchOrigin { BenchOrigin(kind: origin, tlsVersion: tls) }
}
