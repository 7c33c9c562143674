import ArgumentParser
import Foundation
import Spool

/// `spool clear`: deletes every entry.
struct Clear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete every cached resource.")

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let cache = try cacheOptions.openCache().cache
        let count = await cache.entries().count
        let touched = await RemovedDownloads.touched(in: cacheOptions.directory, by: nil)
        await cache.removeAll()
        print("removed \(count) cached resource\(count == 1 ? "" : "s")")
        await RemovedDownloads.report(touched, in: cacheOptions.directory)
    }
}
