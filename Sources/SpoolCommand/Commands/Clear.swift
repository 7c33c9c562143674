import ArgumentParser
import Foundation
import Spool

/// `spool clear`: deletes every entry.
struct Clear: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete every cached resource.")

    @OptionGroup var cacheOptions: CacheOptions

    func run() throws {
        let cache = try cacheOptions.openCache().cache
        let count = cache.entries().count
        cache.removeAll()
        print("removed \(count) cached resource\(count == 1 ? "" : "s")")
    }
}
