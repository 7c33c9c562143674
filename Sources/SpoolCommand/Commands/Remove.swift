import ArgumentParser
import Foundation
import Spool

/// `spool rm URL`: deletes one entry.
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Delete a resource's cached bytes.")

    @Argument(help: "The URL the resource was cached from.")
    var url: String

    @OptionGroup var cacheOptions: CacheOptions

    func run() throws {
        let url = try parseOriginURL(url)
        let cache = try cacheOptions.openCache().cache
        guard cache.entry(for: url) != nil else {
            throw CommandFailure(message: "not cached: \(CacheKeyPolicy.displayURL(for: url))")
        }
        cache.remove(url)
        print("removed \(CacheKeyPolicy.displayURL(for: url))")
    }
}
