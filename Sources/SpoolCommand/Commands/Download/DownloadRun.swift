import ArgumentParser
import Foundation
import Spool

/// `spool download run`: runs the queue until every download is done.
struct DownloadRun: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the queue until every download has completed, failed or been paused (after a kill too).")

    @OptionGroup var runOptions: DownloadRunOptions
    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let configuration = try runOptions.configuration()
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            switch try await accessQueue(cache, configuration: configuration) {
            case .own(let queue): try await runDownloads(queue)
            case .served(let served): try await followServed(served, ids: nil)
            }
        }
    }
}
