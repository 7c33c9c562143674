import ArgumentParser
import Foundation
import Spool

/// `spool rm URL`: deletes one entry.
struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a resource's cached bytes.")

    @Argument(help: "The URL the resource was cached from.")
    var url: String

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let url = try parseOriginURL(url)
        let cache = try cacheOptions.openCache().cache
        guard await cache.entry(for: url) != nil else {
            throw CommandFailure(message: "not cached: \(CacheKeyPolicy.displayURL(for: url))")
        }
        let touched = await RemovedDownloads.touched(in: cacheOptions.directory, by: [url])
        await cache.remove(url)
        print("removed \(CacheKeyPolicy.displayURL(for: url))")
        await RemovedDownloads.report(touched, in: cacheOptions.directory)
    }
}
