import Foundation
import Spool
import SpoolAsyncHTTPClient
import SpoolDownloads
import SpoolTesting

/// One pass of the downloads benchmark across a new emulated link: every item fetched whole, by curl all at
/// once or by a `DownloadQueue` a few at a time into an empty cache.
struct DownloadsRun {
    /// How the items are fetched.
    enum Way: Hashable, CustomStringConvertible {
        /// One curl process fetching every item in parallel (`--parallel`), bodies to /dev/null.
        case curl
        /// A `DownloadQueue` with this many downloads at a time.
        case spool(Int)

        var description: String {
            switch self {
            case .curl: "curl, all in parallel"
            case .spool(let slots): "Spool DownloadQueue, \(slots) at a time"
            }
        }
    }

    /// What one pass measured.
    struct Result {
        /// From the first request to the last item's end.
        var seconds: Double
        /// From the first request to the end of the first item to be complete.
        var firstItemSeconds: Double
        /// Bytes that entered the link from the origin.
        var linkBytes: Int64
    }

    let items: [DownloadsMedia.Item]
    let originPort: Int
    let scheme: String
    let trustRoots: [URL]
    let profile: LinkProfile
    let curl: ExternalCommand
    let root: URL

    func run(_ way: Way, pass: Int) async throws -> Result {
        let link = try LinkEmulator(upstreamPort: originPort, profile: profile, scheme: scheme)
        defer { link.stop() }
        let urls = items.map { link.url(for: $0.path) }
        switch way {
        case .curl: return try await viaCurl(urls, link: link)
        case .spool(let slots): return try await viaSpool(urls, slots: slots, link: link, pass: pass)
        }
    }

    /// One curl process, every transfer at once; each transfer's own total time gives the first complete.
    private func viaCurl(_ urls: [URL], link: LinkEmulator) async throws -> Result {
        var arguments = [
            "-s", "-S", "--parallel", "--parallel-immediate", "--parallel-max", "\(urls.count)",
            scheme == "https" ? "--http2" : "--http1.1", "-w", "%{http_code} %{size_download} %{time_total}\\n",
        ]
        arguments += trustRoots.flatMap { ["--cacert", $0.path] }
        for url in urls { arguments += ["-o", "/dev/null", url.absoluteString] }
        let (curl, arguments2) = (curl, arguments)
        let began = DispatchTime.now().uptimeNanoseconds
        let output = try await BlockingIO.run { try curl.run(arguments2, timeout: 3600) }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        let transfers = output.stdoutText.split(separator: "\n").map { $0.split(separator: " ") }
        let expected = Set(items.map(\.length))
        // curl checks nothing but the sizes: its bodies go to /dev/null, as a reference for time and bytes.
        guard output.status == 0, transfers.count == urls.count,
            transfers.allSatisfy({ $0.count == 3 && $0[0] == "200" && expected.contains(Int64($0[1]) ?? -1) })
        else {
            throw CommandFailure(message: "curl failed (\(output.status)): \(output.stderr)\(output.stdoutText)")
        }
        let first = transfers.compactMap { Double($0[2]) }.min() ?? seconds
        return Result(seconds: seconds, firstItemSeconds: first, linkBytes: link.bytesFromUpstream)
    }

    /// A queue over an empty cache; its events give each item's end. Every item is checked byte for byte after.
    private func viaSpool(_ urls: [URL], slots: Int, link: LinkEmulator, pass: Int) async throws -> Result {
        let directory = root.appendingPathComponent("cache-\(profile.name)-\(slots)-\(pass)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let transport = AsyncHTTPClientTransport(additionalTrustRoots: trustRoots)
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(directory: directory, origin: HTTPOrigin(transport: transport)))
        let queue = try await DownloadQueue(
            cache: cache, configuration: DownloadConfiguration(maximumConcurrentDownloads: slots),
            conditions: SettableConditions(availableDiskBytes: 1 << 50))
        let events = queue.events()
        let began = DispatchTime.now().uptimeNanoseconds
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9 }
        try await queue.add(contentsOf: urls.map { DownloadRequest(url: $0) })
        var first: Double?
        var failure: String?
        func settled() -> Bool {
            let states = queue.items.map(\.state)
            if first == nil, states.contains(where: { if case .completed = $0 { true } else { false } }) {
                first = elapsed()
            }
            for case .failed(let reason) in states { failure = reason }
            return failure != nil || states.allSatisfy { if case .completed = $0 { true } else { false } }
        }
        if !settled() {
            for await _ in events where settled() { break }
        }
        let seconds = elapsed()
        let linkBytes = link.bytesFromUpstream
        await queue.stop()
        if let failure {
            await cache.close()
            await transport.shutdown()
            throw CommandFailure(message: "\(profile.name), Spool: a download failed: \(failure)")
        }
        for (item, url) in zip(items, urls) {
            // Stored whole by the downloads (the check reads the cache, nothing from the origin), and right.
            let stored = await cache.cachedRanges(for: url).byteCount
            let data = stored == item.length ? try await cache.data(of: Resource(url: url), in: 0..<item.length) : nil
            guard data == item.bytes else {
                await cache.close()
                await transport.shutdown()
                throw CommandFailure(
                    message: "\(profile.name), Spool: \(item.path) stored \(stored) bytes, not the origin's file")
            }
        }
        await cache.close()
        await transport.shutdown()
        return Result(seconds: seconds, firstItemSeconds: first ?? seconds, linkBytes: linkBytes)
    }
}
