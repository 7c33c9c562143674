import ArgumentParser
import Foundation
import Spool

/// What `pause`, `resume` and `remove` share: the ids, the cache, and a queue opened to change and closed.
struct DownloadIDs: ParsableArguments {
    @Argument(help: "The downloads' ids (`spool download ls`; by default a download's URL).")
    var ids: [String]

    @OptionGroup var cacheOptions: CacheOptions

    /// Opens the queue without running what it holds, applies `change` to each id, and closes it.
    func apply(_ change: @escaping @Sendable (DownloadQueue, String) async throws -> Void) async throws {
        let opened = try cacheOptions.openCache(reportProblems: true)
        do {
            // A queue that starts nothing: the change is all this process does (`spool download run` downloads).
            let queue = try await openQueue(opened.cache, configuration: DownloadConfiguration(startsDownloads: false))
            let known = Set(queue.items.map(\.request.id))
            let unknown = ids.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                await queue.stop()
                throw CommandFailure(message: "no download \(unknown[0]) in the queue (`spool download ls`)")
            }
            for id in ids { try await change(queue, id) }
            for id in ids {
                print("\(id): \(queue.item(id).map { DownloadPrinter.describe($0.state, exact: true) } ?? "removed")")
            }
            await queue.stop()
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
    }
}

/// `spool download pause ID...`.
struct DownloadPause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause downloads.")
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply { try await $0.pause($1) }
    }
}

/// `spool download resume ID...`.
struct DownloadResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Queue paused or failed downloads again (`spool download run` runs them).")
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply { try await $0.resume($1) }
    }
}

/// `spool download remove ID...`.
struct DownloadRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove downloads from the queue, and their bytes from the cache.")
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply { try await $0.remove($1) }
    }
}
