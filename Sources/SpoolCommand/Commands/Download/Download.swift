import ArgumentParser
import Foundation
import Spool
import SpoolDownloads
import SpoolProxy

/// `spool download`: the cache's queue of downloads for offline play, the one `DownloadQueue` runs in an app.
struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Download files and HLS streams for offline play: a queue that survives a kill or a relaunch.",
        discussion: """
            The queue lives in the cache directory (downloads.json). `add` and `run` run it in this process \
            until every download has completed, failed or been paused; a download stopped by a kill goes on \
            from its first missing byte at the next `run`. Downloads are pinned from their first byte: the \
            cache's --max-size and --max-age never evict them. One process runs a queue at a time.
            """,
        subcommands: [
            DownloadAdd.self, DownloadRun.self, DownloadList.self, DownloadPause.self,
            DownloadResume.self, DownloadRemove.self,
        ])
}

/// Options of the commands that run the queue.
struct DownloadRunOptions: ParsableArguments {
    @Option(help: "Keep at least this much disk space free; downloads wait below it (500MB, 2GB, 0: none).")
    var reserve: String = "500MB"

    @Option(help: "Downloads at a time.")
    var parallel: Int = 2

    /// The queue's configuration.
    func configuration() throws -> DownloadConfiguration {
        try Self.configuration(reserve: reserve, parallel: parallel, options: ("--reserve", "--parallel"))
    }

    /// The configuration of a queue the command line runs, with the options' names for its errors.
    static func configuration(reserve text: String, parallel: Int, options: (reserve: String, parallel: String))
        throws -> DownloadConfiguration
    {
        let reserve: Int64
        do {
            reserve = text.trimmingCharacters(in: .whitespaces) == "0" ? 0 : try ByteSize(parsing: text).bytes
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError("\(options.reserve): \(invalid.description)")
        }
        guard parallel > 0 else { throw ValidationError("\(options.parallel): at least 1") }
        var rules = TransferRules.downloads
        rules.diskReserveBytes = reserve
        // A command line runs where its user chose to run it: the network's cost and the power are theirs.
        rules.allowsExpensiveNetwork = true
        rules.allowsConstrainedNetwork = true
        rules.allowsLowPowerMode = true
        return DownloadConfiguration(maximumConcurrentDownloads: parallel, rules: rules)
    }
}

/// Runs `queue` until no download is queued or running, printing each change on stderr; throws when one
/// failed.
func runDownloads(_ queue: DownloadQueue) async throws {
    let events = queue.events()
    var printer = DownloadPrinter()
    for item in queue.items { printer.show(item.request.id, item.state) }
    func settled() -> Bool {
        queue.items.allSatisfy {
            switch $0.state {
            case .completed, .failed, .paused: true
            case .queued, .waiting, .downloading: false
            }
        }
    }
    if !settled() {
        for await event in events {
            if let state = event.state { printer.show(event.id, state) }
            if settled() { break }
        }
    }
    let failed = queue.items.filter { if case .failed = $0.state { true } else { false } }
    await queue.stop()
    guard failed.isEmpty else {
        throw CommandFailure(message: "\(failed.count) download(s) failed; `spool download resume ID` tries again")
    }
}

/// Where the download commands find the cache's queue: opened by this process, or run by `spool serve`.
enum QueueAccess {
    case own(DownloadQueue)
    case served(ServedQueue)
}

/// Opens the queue of `cache`; when another process runs it and that process is `spool serve`, the command
/// goes to serve's download API instead. Fails with the queue's reason otherwise.
func accessQueue(_ cache: SpoolCache, configuration: DownloadConfiguration) async throws -> QueueAccess {
    do {
        return .own(try await DownloadQueue(cache: cache, configuration: configuration))
    } catch let failure as DownloadQueue.Failure {
        guard case .inUse = failure, let served = await ServedQueue.find(in: cache.configuration.directory) else {
            throw CommandFailure(message: failure.description)
        }
        FileHandle.standardError.write(
            Data("spool: spool serve (pid \(served.pid)) runs this queue; asking it\n".utf8))
        return .served(served)
    }
}

/// Follows the queue `spool serve` runs until the downloads `ids` (every one when `nil`) have completed, failed
/// or been paused, printing each change on stderr; throws when one failed, or when serve stops first.
func followServed(_ served: ServedQueue, ids: Set<String>?) async throws {
    var printer = DownloadPrinter()
    // Ends when the downloads do, or serve does; Ctrl-C ends it too and leaves the downloads to serve.
    while true {
        let status: DownloadStatusMessage
        do {
            status = try await served.status()
        } catch {
            throw CommandFailure(
                message:
                    "spool serve (pid \(served.pid)) stopped: \(error); `spool download run` goes on with the queue")
        }
        let items = status.items.filter { ids?.contains($0.id) ?? true }
        for item in items {
            if let state = item.downloadState { printer.show(item.id, state) }
        }
        if items.allSatisfy({ ["completed", "failed", "paused"].contains($0.state) }) {
            let failed = items.filter { $0.state == "failed" }.count
            guard failed == 0 else {
                throw CommandFailure(
                    message: "\(failed) download(s) failed; `spool download resume ID` tries again")
            }
            return
        }
        // serve's API has no event stream: a look four times a second is what a progress line needs.
        try await Task.sleep(nanoseconds: 250_000_000)
    }
}
