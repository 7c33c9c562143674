import ArgumentParser
import Foundation
import Spool
import SpoolDownloads

/// What `pause`, `resume` and `remove` share: the ids, the cache, and a queue opened to change and closed.
struct DownloadIDs: ParsableArguments {
    @Argument(help: "The downloads' ids (`spool download ls`; by default a download's URL).")
    var ids: [String]

    @OptionGroup var cacheOptions: CacheOptions

    /// What a command does to each download.
    enum Change {
        case pause, resume, remove
    }

    /// Opens the queue without running what it holds (or asks the `spool serve` that runs it), applies `change`
    /// to each id, and closes it. Unknown ids change nothing.
    func apply(_ change: Change) async throws {
        let opened = try cacheOptions.openCache(reportProblems: true)
        do {
            // A queue that starts nothing: the change is all this process does (`spool download run` downloads).
            switch try await accessQueue(opened.cache, configuration: DownloadConfiguration(startsDownloads: false)) {
            case .own(let queue):
                do {
                    try check(Set(queue.items.map(\.request.id)))
                    for id in ids {
                        switch change {
                        case .pause: try await queue.pause(id)
                        case .resume: try await queue.resume(id)
                        case .remove: try await queue.remove(id)
                        }
                    }
                    show(queue.items.map { ($0.request.id, $0.state) })
                    await queue.stop()
                } catch {
                    await queue.stop()
                    throw error
                }
            case .served(let served):
                try check(Set(try await served.status().items.map(\.id)))
                switch change {
                case .pause: try await served.set(ids, to: "paused")
                case .resume: try await served.set(ids, to: "queued")
                case .remove: try await served.remove(ids)
                }
                show(try await served.status().items.compactMap { item in item.downloadState.map { (item.id, $0) } })
            }
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
    }

    private func check(_ known: Set<String>) throws {
        // All or nothing, by design: a typo in one id must not leave the others half changed.
        let unknown = ids.filter { !known.contains($0) }
        guard unknown.isEmpty else {
            let others = ids.count > unknown.count ? "; nothing was changed, the other ids included" : ""
            throw CommandFailure(
                message: "no download \(unknown.joined(separator: ", ")) in the queue (`spool download ls`)\(others)")
        }
    }

    private func show(_ states: [(id: String, state: DownloadState)]) {
        let byID = Dictionary(states.map { ($0.id, $0.state) }, uniquingKeysWith: { first, _ in first })
        for id in ids {
            print("\(id): \(byID[id].map { DownloadPrinter.describe($0, exact: true) } ?? "removed")")
        }
    }
}

/// `spool download pause ID...`.
struct DownloadPause: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause downloads.")
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply(.pause)
    }
}

/// `spool download resume ID...`.
struct DownloadResume: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume", abstract: "Queue paused or failed downloads again (`spool download run` runs them).")
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply(.resume)
    }
}

/// `spool download remove ID...`.
struct DownloadRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove downloads from the queue, and their bytes from the cache.",
        aliases: ["rm"])
    @OptionGroup var downloads: DownloadIDs

    func run() async throws {
        try await downloads.apply(.remove)
    }
}
