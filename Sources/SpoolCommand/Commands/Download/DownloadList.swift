import ArgumentParser
import Foundation
import Spool
import SpoolDownloads
import SpoolProxy

/// `spool download ls`: the queue, with what each download has stored.
struct DownloadList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the queue: id, state, bytes stored, title, URL.")

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        // While `spool serve` runs the queue, its running downloads' progress; otherwise the queue as written.
        let items: [(request: DownloadRequest, state: DownloadState)]
        if let served = await ServedQueue.find(in: cacheOptions.directory) {
            items = try await served.status(checkingStored: true).items.compactMap { item in
                guard let url = URL(string: item.url), let state = item.downloadState else { return nil }
                return (
                    DownloadRequest(
                        url: url, id: item.id, kind: item.kind == "hls" ? .hls(variants: .highest) : .file,
                        title: item.title), state
                )
            }
        } else {
            items = try await DownloadQueue.written(in: cacheOptions.directory).map { ($0.request, $0.state) }
        }
        guard !items.isEmpty else { return print("no downloads") }
        let cache = try cacheOptions.openCache().cache
        print(["ID", "STATE", "STORED", "TITLE", "URL"].joined(separator: "\t"))
        for var item in items {
            // A queue no process runs says what it was told: the bytes of a completed download may have gone
            // since (`spool rm`, `clear`); the next run downloads it again.
            var note = ""
            if case .completed = item.state, !(await DownloadQueue.isStoredWhole(item.request, in: cache)) {
                item.state = .queued
                note = " (its bytes were removed from the cache: downloaded again by the next run)"
            }
            // A file's own entry; an HLS stream's playlist only (its segments are many entries).
            let entry = await cache.entry(for: item.request.url)
            let stored = entry.map { entry in
                guard case .file = item.request.kind, entry.info.length > 0 else {
                    return ByteCountText.format(entry.cachedBytes)
                }
                return String(
                    format: "%.1f%% of %@", entry.fractionCached * 100, ByteCountText.format(entry.info.length))
            }
            print(
                [
                    item.request.id, DownloadPrinter.describe(item.state, exact: true) + note, stored ?? "-",
                    item.request.title ?? "-", CacheKeyPolicy.displayURL(for: item.request.url),
                ].joined(separator: "\t"))
        }
    }
}
