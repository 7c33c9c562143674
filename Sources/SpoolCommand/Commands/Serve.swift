import ArgumentParser
import Dispatch
import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolDownloads
import SpoolProxy

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `spool serve`: the local caching proxy, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the local caching proxy; players read `spool proxy-url` URLs through the cache.",
        discussion: """
            Prints the base URL on the first line of standard output, then serves until SIGINT or SIGTERM, \
            when it closes every connection and writes the cache index before exiting. GET /statistics gives \
            the cache's counters as JSON; PUT /preload with a feed's items keeps the next ones preloaded \
            (see the article "Preloading a feed" in Sources/Spool/Spool.docc). It runs the cache's download \
            queue: PUT /downloads queues downloads for offline, GET /downloads shows them, and \
            `spool download` commands go to this process while it runs. \
            It serves only the URLs it made (`spool proxy-url`), to requests addressed to its own address; its \
            API (/statistics, /preload, /downloads) needs `Authorization: Bearer TOKEN`. The token and the URL \
            key are in serve.json in the cache directory, readable by its user only, while serve runs.
            """)

    @Option(
        help: ArgumentHelp(
            "The address to listen on. Anything but loopback exposes the cache to the network.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(help: ArgumentHelp("The port; 0 picks a free one.", valueName: "port"))
    var port = 0

    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp(
            "Serve only origins on this host (repeatable; '*.example.com' for subdomains). Default: any host a "
                + "`spool proxy-url` URL names.",
            valueName: "host"))
    var allowedHosts: [String] = []

    @Option(
        name: .customLong("url-key-file"),
        help: ArgumentHelp(
            "Sign proxy URLs with the key in this file (32 raw bytes or 64 hex characters; made if missing, "
                + "readable by its user only), so they stay valid when serve restarts. Default: a new key each run.",
            valueName: "file"))
    var urlKeyFile: String?

    @Flag(
        name: .shortAndLong, help: "Log one line per request on standard error (no headers, no credential query items)."
    )
    var verbose = false

    @Option(
        help: ArgumentHelp(
            "How many bandwidth-delay products of requests a read keeps ahead of its client (default 1): more starts "
                + "faster on long reads, less wastes less when a player abandons a read.", valueName: "n"))
    var bandwidthDelayMultiple: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds a request a player hung up on waits for its next read to take it over before it is cancelled "
                + "(default 1.5; 0 cancels at once).", valueName: "seconds"))
    var abandonedRequestGrace: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds of an HLS stream read into the cache ahead of the segment a player asked for (default 10; "
                + "0 turns it off).", valueName: "seconds"))
    var readAhead: Double = ProxyConfiguration().readAheadSeconds

    @Flag(
        inversion: .prefixedNo,
        help: "Cache HLS keys like segments, so encrypted streams play offline (--no-cache-keys: players fetch them).")
    var cacheKeys = true

    @Option(
        help: ArgumentHelp(
            "Seconds of each feed item the preload API (PUT /preload) preloads, unless the item says (default 3).",
            valueName: "seconds"))
    var preloadSeconds: Double = 3

    @Option(
        help: ArgumentHelp(
            "Feed items after the current one the preload API keeps preloaded (default 2).", valueName: "n"))
    var preloadAhead = PreloadConfiguration().itemsAhead

    @Option(
        help: ArgumentHelp(
            "Keep at least this much disk space free; downloads wait below it (500MB, 2GB, 0: none).",
            valueName: "size"))
    var downloadReserve = "500MB"

    @Option(help: ArgumentHelp("Downloads at a time.", valueName: "n"))
    var parallelDownloads = 2

    @Flag(help: "Leave the cache's download queue alone (the download API then answers 404).")
    var noDownloads = false

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        _ = try downloadConfiguration()
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        if let bandwidthDelayMultiple, !(0.1...16).contains(bandwidthDelayMultiple) {
            throw ValidationError("--bandwidth-delay-multiple must be between 0.1 and 16")
        }
        if let abandonedRequestGrace, !(0...60).contains(abandonedRequestGrace) {
            throw ValidationError("--abandoned-request-grace must be 0 to 60 seconds")
        }
        guard (0...3600).contains(readAhead) else { throw ValidationError("--read-ahead must be 0 to 3600 seconds") }
        guard preloadSeconds > 0, preloadSeconds <= 3600 else {
            throw ValidationError("--preload-seconds must be more than 0 and at most 3600")
        }
        guard (0...100).contains(preloadAhead) else { throw ValidationError("--preload-ahead must be 0 to 100") }
    }

    func run() async throws {
        let opened = try cacheOptions.openCache(
            headers: try headers.fields(), limits: try limitOptions.limits(), reportProblems: true,
            fetchPolicy: FetchPolicy(
                bandwidthDelayMultiple: bandwidthDelayMultiple ?? FetchPolicy().bandwidthDelayMultiple,
                abandonedRequestGrace: abandonedRequestGrace ?? FetchPolicy().abandonedRequestGrace))
        let cache = opened.cache
        // Made here when not given, so that serve.json can hand it to `spool proxy-url`.
        let urlKey: ProxyURLKey
        do {
            urlKey = try urlKeyFile.map(URLKeyFile.loadOrCreate(path:)) ?? ProxyURLKey()
        } catch {
            await opened.close()
            throw error
        }
        let downloads = try await openDownloads(cache)
        // Without --verbose, only what the proxy noticed (playlist URIs it left alone, stale live playlists).
        let everyRequest = verbose
        let log: @Sendable (ProxyLogRecord) -> Void = { record in
            guard everyRequest || record.note != nil else { return }
            FileHandle.standardError.write(Data("\(record)\n".utf8))
        }
        let proxy = SpoolProxy(
            cache: cache,
            configuration: ProxyConfiguration(
                host: host, port: port, allowedHosts: Set(allowedHosts), urlKey: urlKey, log: log,
                readAheadSeconds: readAhead,
                cachesKeys: cacheKeys,
                preload: PreloadConfiguration(itemsAhead: preloadAhead, target: .seconds(preloadSeconds))),
            downloads: downloads)
        let signals = SignalListener(signals: [SIGINT, SIGTERM])
        let baseURL: URL
        do {
            baseURL = try await proxy.start()
        } catch {
            await downloads?.stop()
            await opened.close()
            throw CommandFailure(message: "\(error)")
        }
        // A listening socket lost and bound again (or moved to another port) is worth a line.
        let events = proxy.events()
        let eventPrinter = Task {
            for await event in events { FileHandle.standardError.write(Data("spool: \(event)\n".utf8)) }
        }
        await ping(baseURL, through: opened.transport)
        let downloadPrinter = downloads.map { queue in
            Task {
                var printer = DownloadPrinter(prefix: "spool: download ")
                for await event in queue.events() { if let state = event.state { printer.show(event.id, state) } }
            }
        }
        let record = ServeRecord(
            url: baseURL.absoluteString, pid: getpid(), controlToken: proxy.controlToken,
            urlKey: urlKey.data.base64EncodedString())
        do {
            try record.write(in: cacheOptions.directory)
        } catch {
            FileHandle.standardError.write(
                Data(
                    "spool: warning: \(error); `spool proxy-url` and `spool download` will not find this process\n".utf8
                ))
        }
        // Written straight to the descriptor: a script waiting for this line must not wait for a buffer.
        FileHandle.standardOutput.write(Data((baseURL.absoluteString + "\n").utf8))
        FileHandle.standardError.write(
            Data(
                """
                spool: serving the cache in \(cacheOptions.directory.path)
                spool: play `spool proxy-url URL --cache \(cacheOptions.directory.path)`; SIGINT or SIGTERM stops\n
                """.utf8))
        if let summary = try limitOptions.summary() { FileHandle.standardError.write(Data((summary + "\n").utf8)) }

        let received = await signals.next()
        FileHandle.standardError.write(Data("spool: \(received == SIGTERM ? "SIGTERM" : "SIGINT"), stopping\n".utf8))
        await proxy.stop()
        // After the proxy: no request changes the queue any more. Its running downloads stop and are written
        // down as queued; the next serve or `spool download run` goes on with them.
        await downloads?.stop()
        record.remove(in: cacheOptions.directory)
        await eventPrinter.value
        await downloadPrinter?.value
        await opened.close()
    }
}

extension Serve {
    private func downloadConfiguration() throws -> DownloadConfiguration {
        try DownloadRunOptions.configuration(
            reserve: downloadReserve, parallel: parallelDownloads,
            options: ("--download-reserve", "--parallel-downloads"))
    }

    /// The cache's download queue, run by this process; `nil` with --no-downloads, or with a warning when
    /// another process runs it.
    private func openDownloads(_ cache: SpoolCache) async throws -> DownloadQueue? {
        guard !noDownloads else { return nil }
        do {
            return try await DownloadQueue(cache: cache, configuration: try downloadConfiguration())
        } catch let failure as DownloadQueue.Failure {
            FileHandle.standardError.write(
                Data("spool: warning: \(failure); the download API answers 404 until this serve restarts\n".utf8))
            return nil
        }
    }

    /// Asks the proxy for its ping path through the origin client, before the URL is announced: a check that
    /// the listener answers, and it spares the first player the one-time set-up of both HTTP stacks (on
    /// Linux, 6 of the first request's 10 ms over loopback).
    private func ping(_ baseURL: URL, through transport: AsyncHTTPClientTransport) async {
        var request = URLRequest(url: ProxyURLMapping.pingURL(at: baseURL), timeoutInterval: 5)
        request.httpMethod = "HEAD"
        do {
            let response = try await transport.send(request)
            for try await _ in response.body {}
            guard response.status == 200 else { throw SpoolError.httpStatus(response.status) }
        } catch {
            FileHandle.standardError.write(
                Data("spool: warning: the proxy did not answer its own ping: \(error)\n".utf8))
        }
    }
}

/// Turns SIGINT and SIGTERM into an awaitable event instead of the default immediate exit, so the proxy
/// can close its connections and the cache write its index.
final class SignalListener {
    private let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "spool.signals")
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        self.stream = stream
    }

    /// Waits for the next signal.
    func next() async -> Int32 {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? SIGTERM
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
