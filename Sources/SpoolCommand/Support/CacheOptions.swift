import ArgumentParser
import Foundation
import Spool
import SpoolAsyncHTTPClient

/// Options every command that touches the cache takes.
struct CacheOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The cache directory. Default: $SPOOL_CACHE_DIR, else the platform's cache directory.", valueName: "dir"))
    var cache: String?

    @Option(
        name: .customLong("key-file"),
        help: ArgumentHelp(
            "Encrypt cached bytes with the key in this file: 32 raw bytes or 64 hex characters. Entries cached with "
                + "another key are fetched again.",
            valueName: "file"))
    var keyFile: String?

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for HTTPS origins, besides the system's (a "
                + "private CDN's; repeatable).",
            valueName: "file"))
    var caFiles: [String] = []

    func validate() throws {
        _ = try encryptionKey()
        for file in caFiles where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--ca-file \(file): no such readable file")
        }
    }

    /// The key in `--key-file`, or `nil` without one.
    func encryptionKey() throws -> Data? {
        do {
            return try keyFile.map(KeyFile.load(path:))
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError(invalid.description)
        }
    }

    /// The directory the options name.
    var directory: URL {
        if let cache { return URL(fileURLWithPath: cache, isDirectory: true) }
        if let fromEnvironment = ProcessInfo.processInfo.environment["SPOOL_CACHE_DIR"], !fromEnvironment.isEmpty {
            return URL(fileURLWithPath: fromEnvironment, isDirectory: true)
        }
        return SpoolConfiguration.defaultDirectory
    }

    /// Opens the cache, sending `headers` with every origin request, within `limits`; problems the cache
    /// handles on its own are printed as warnings when `reportProblems` is set. The origin goes over
    /// AsyncHTTPClient (enough connections per host for `spool serve`'s many players), whose client starts
    /// at the first origin request: a command that fetches closes what this returns, one that only reads the
    /// index may just use its cache.
    func openCache(
        headers: [String: String] = [:], limits: CacheLimits = .unlimited, reportProblems: Bool = false,
        fetchPolicy: FetchPolicy = FetchPolicy()
    ) throws -> CommandCache {
        let transport = AsyncHTTPClientTransport(
            additionalTrustRoots: caFiles.map { URL(fileURLWithPath: $0) })
        let origin = HTTPOrigin(
            transport: transport, modifier: headers.isEmpty ? nil : HTTPOrigin.settingHeaders(headers))
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: origin, fetchPolicy: fetchPolicy, limits: limits,
                encryptionKey: try encryptionKey(),
                onProblem: reportProblems ? ProblemPrinter.standardError : nil))
        return CommandCache(cache: cache, transport: transport)
    }
}

/// Origin request headers given as `-H 'Name: value'`.
struct HeaderOptions: ParsableArguments {
    @Option(
        name: .customShort("H"),
        help: ArgumentHelp("An origin request header, 'Name: value' (repeatable). Never stored.", valueName: "header"))
    var header: [String] = []

    func validate() throws {
        _ = try fields()
    }

    /// The headers as a dictionary.
    func fields() throws -> [String: String] {
        var result: [String: String] = [:]
        for line in header {
            guard let colon = line.firstIndex(of: ":") else {
                throw ValidationError("header '\(line)' is not of the form 'Name: value'")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) })
            else {
                throw ValidationError("header name '\(name)' is not valid")
            }
            result[name] = value
        }
        return result
    }
}

/// Parses a URL argument: http and https only.
func parseOriginURL(_ text: String) throws -> URL {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else {
        throw ValidationError("'\(text)' is not a URL")
    }
    guard scheme == "http" || scheme == "https" else {
        throw CommandFailure(message: SpoolError.unsupportedScheme(scheme).description)
    }
    guard let host = url.host, !host.isEmpty else {
        throw CommandFailure(
            message: "'\(text)' names no host: give a whole URL, like https://cdn.example.com/song.mp3")
    }
    return url
}
