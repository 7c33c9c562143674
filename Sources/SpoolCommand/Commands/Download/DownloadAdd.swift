import ArgumentParser
import Foundation
import Spool
import SpoolDownloads
import SpoolProxy

/// `spool download add URL...`: adds downloads to the queue, then runs it.
struct DownloadAdd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add downloads to the queue, then run it until they are done.")

    @Argument(help: "The http or https URLs: files, or HLS playlists (master or media).")
    var urls: [String]

    @Option(help: "The title the queue keeps with each download (one per URL, in order).")
    var title: [String] = []

    @Flag(help: "HLS: every variant (by default the highest), for a player that switches between them offline.")
    var allVariants = false

    @Flag(help: "Add and return at once; `spool download run` downloads them.")
    var noWait = false

    @OptionGroup var runOptions: DownloadRunOptions
    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        guard title.isEmpty || title.count == urls.count else {
            throw ValidationError("--title: one per URL (\(urls.count)), or none")
        }
    }

    func run() async throws {
        let urls = try urls.map(parseOriginURL)
        var configuration = try runOptions.configuration()
        // Added only: the next `spool download run` downloads.
        configuration.startsDownloads = !noWait
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            let access = try await accessQueue(cache, configuration: configuration)
            let titles = urls.indices.map { title.isEmpty ? nil : title[$0] }
            let variants: HLSVariantChoice = allVariants ? .all : .highest
            if case .served(let served) = access {
                let items = urls.indices.map {
                    DownloadAddMessage.Item(url: urls[$0], title: titles[$0], variants: variants)
                }
                try await served.add(items)
                if noWait { return }
                // An item's id is its URL, as serve names it.
                return try await followServed(served, ids: Set(items.map(\.url)))
            }
            guard case .own(let queue) = access else { return }
            do {
                let streams = HLSPinning(cache: cache)
                var requests: [DownloadRequest] = []
                for (index, url) in urls.enumerated() {
                    // One request (its answer is cached) tells a playlist from a file; with the origin out of
                    // reach, its name does, and the download waits for the origin.
                    let isPlaylist = try await streams.isPlaylistOrNamedOne(url)
                    let kind: DownloadKind = isPlaylist ? .hls(variants: variants) : .file
                    requests.append(DownloadRequest(url: url, kind: kind, title: titles[index]))
                }
                // All at once: a kill from here on finds the whole list queued.
                try await queue.add(contentsOf: requests)
            } catch {
                await queue.stop()
                throw error
            }
            if noWait { return await queue.stop() }
            try await runDownloads(queue)
        }
    }
}
