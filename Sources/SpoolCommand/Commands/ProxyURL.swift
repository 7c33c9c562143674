import ArgumentParser
import Foundation
import SpoolProxy

/// `spool proxy-url URL --port N`: the URL that plays an origin URL through `spool serve`.
struct ProxyURL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-url",
        abstract: "Print the proxy URL that plays an http(s) URL through `spool serve`.",
        discussion: """
            The proxy URL is http://HOST:PORT/o/<origin URL as base64url, no padding>/<origin file name>. \
            It reverses to the exact origin URL (query, percent-encoding and non-ASCII text included); the \
            file name at the end lets players that guess the type from the path see the extension.
            """)

    @Argument(help: "The http or https origin URL.")
    var url: String

    @Option(help: ArgumentHelp("The proxy's host.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The proxy's port, as `spool serve` printed it.", valueName: "port"))
    var port: Int

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() throws {
        let origin = try parseOriginURL(url)
        print(try ProxyURLMapping(host: host, port: port).proxyURL(for: origin).absoluteString)
    }
}
