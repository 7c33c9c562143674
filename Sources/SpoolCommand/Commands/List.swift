import ArgumentParser
import Foundation
import Spool

/// `spool ls`: the cache's entries.
struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List cached resources: size, share cached, last access, pinned or not, URL.")

    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let cache = try cacheOptions.openCache().cache
        let entries = await cache.entries()
        guard !entries.isEmpty else { return print("no cached resources") }
        let formatter = ISO8601DateFormatter()
        print(["SIZE", "CACHED", "LAST ACCESS", "PINNED", "URL"].joined(separator: "\t"))
        for entry in entries {
            print(
                [
                    ByteCountText.format(entry.info.length),
                    String(format: "%.1f%%", entry.fractionCached * 100),
                    formatter.string(from: entry.lastAccess),
                    entry.isPinned ? "pinned" : "-",
                    entry.url,
                ].joined(separator: "\t"))
        }
    }
}
