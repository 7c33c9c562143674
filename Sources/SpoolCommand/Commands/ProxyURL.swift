import ArgumentParser
import Foundation
import SpoolProxy

/// `spool proxy-url URL`: the URL that plays an origin URL through `spool serve`.
struct ProxyURL: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy-url",
        abstract: "Print the proxy URL that plays an http(s) URL through `spool serve`.",
        discussion: """
            The proxy URL is http://HOST:PORT/o/<proof>/<origin URL as base64url, no padding>/<origin file \
            name>. The proof shows that the proxy made the URL: it serves no other. It is made with the key \
            of the serve that runs on the cache directory (from its serve.json), or with --url-key-file and \
            --port for a serve started with that key file. The path reverses to the exact origin URL (query, \
            percent-encoding and non-ASCII text included); the file name at the end lets players that guess \
            the type from the path see the extension.
            """)

    @Argument(help: "The http or https origin URL.")
    var url: String

    @Option(
        name: .customLong("url-key-file"),
        help: ArgumentHelp("Sign with the key in this file, as `spool serve --url-key-file` does.", valueName: "file"))
    var urlKeyFile: String?

    @Option(help: ArgumentHelp("With --url-key-file: the proxy's host.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(
        help: ArgumentHelp("With --url-key-file: the proxy's port, as `spool serve` printed it.", valueName: "port"))
    var port: Int?

    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        if urlKeyFile != nil, port == nil { throw ValidationError("--url-key-file needs --port") }
        if urlKeyFile == nil, port != nil {
            throw ValidationError("--port goes with --url-key-file; without them the running serve is asked")
        }
    }

    func run() throws {
        let origin = try parseOriginURL(url)
        let mapping: ProxyURLMapping
        if let urlKeyFile, let port {
            let key: ProxyURLKey
            do {
                key = try ProxyURLKey(data: try KeyFile.load(path: urlKeyFile))
            } catch let invalid as ArgumentText.Invalid {
                throw CommandFailure(message: "--url-key-file: \(invalid.description)")
            }
            mapping = ProxyURLMapping(host: host, port: port, key: key)
        } else {
            mapping = try Self.servedMapping(in: cacheOptions.directory)
        }
        print(try mapping.proxyURL(for: origin).absoluteString)
    }

    /// The mapping of the serve running on the cache in `directory`, from its serve.json.
    static func servedMapping(in directory: URL) throws -> ProxyURLMapping {
        guard let record = ServeRecord.read(in: directory) else {
            throw CommandFailure(
                message: "no `spool serve` runs on the cache in \(directory.path) (no serve.json there): start one, "
                    + "name its cache with --cache, or give --url-key-file and --port")
        }
        guard record.processRuns else {
            throw CommandFailure(
                message: "the serve.json in \(directory.path) names process \(record.pid), which no longer runs: "
                    + "start `spool serve` again")
        }
        guard let base = URL(string: record.url), let key = record.key else {
            throw CommandFailure(message: "the serve.json in \(directory.path) is not one this spool wrote")
        }
        return ProxyURLMapping(baseURL: base, key: key)
    }
}
