import ArgumentParser
import Foundation
import Spool

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
        let reserve: Int64
        do {
            reserve =
                self.reserve.trimmingCharacters(in: .whitespaces) == "0" ? 0 : try ByteSize(parsing: self.reserve).bytes
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError("--reserve: \(invalid.description)")
        }
        guard parallel > 0 else { throw ValidationError("--parallel: at least 1") }
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
