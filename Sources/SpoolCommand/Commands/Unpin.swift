import ArgumentParser
import Foundation
import Spool

/// `spool unpin URL`: makes a pinned resource evictable again; its bytes stay cached.
struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Unpin a resource: it stays cached but may be evicted again.")

    @Argument(help: "The URL the resource was pinned from.")
    var url: String

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let url = try parseOriginURL(url)
        let cache = try cacheOptions.openCache().cache
        guard let entry = await cache.entry(for: url) else {
            throw CommandFailure(message: "not cached: \(CacheKeyPolicy.displayURL(for: url))")
        }
        guard entry.isPinned else {
            return print("not pinned: \(CacheKeyPolicy.displayURL(for: url))")
        }
        await cache.unpin(url)
        print("unpinned \(CacheKeyPolicy.displayURL(for: url))")
    }
}
