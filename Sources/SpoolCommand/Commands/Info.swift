import ArgumentParser
import Foundation
import Spool

/// `spool info URL`: content information and cached ranges.
struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a resource's content information and which of its bytes are cached.")

    @Argument(help: "The http or https URL.")
    var url: String

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var cacheOptions: CacheOptions

    func run() async throws {
        let url = try parseOriginURL(url)
        let opened = try cacheOptions.openCache(headers: try headers.fields())
        let cache = opened.cache
        let info: ContentInfo
        do {
            info = try await cache.contentInfo(for: url)
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
        let entry = await cache.entry(for: url)
        let cached = entry?.cachedRanges ?? ByteRangeSet()
        let percent = info.length == 0 ? 100 : Double(cached.byteCount) * 100 / Double(info.length)
        print("url:            \(CacheKeyPolicy.displayURL(for: url))")
        print("length:         \(info.length) (\(ByteCountText.format(info.length)))")
        print("type:           \(info.mimeType ?? "unknown")")
        print("ranges:         \(info.acceptsRanges ? "supported" : "not supported")")
        print("etag:           \(info.entityTag ?? "none")")
        print("last-modified:  \(info.lastModified ?? "none")")
        print("cached:         \(cached.byteCount) bytes (\(String(format: "%.1f", percent))%)")
        print("pinned:         \(entry?.isPinned == true ? "yes" : "no")")
        let ranges = cached.ranges.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ", ")
        print("cached ranges:  \(cached.isEmpty ? "none" : ranges)")
    }
}
