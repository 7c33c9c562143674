import Foundation
import Spool
import SpoolDownloads

/// What `rm` and `clear` do to the download queue: a completed download whose bytes they removed goes back to
/// the queue. A running `spool serve` checks its queue at once (asked for its status); otherwise the next
/// `spool download run` does. Either way the command says which downloads and how to drop one for good.
enum RemovedDownloads {
    /// The completed downloads of `directory`'s queue that a removal of `urls` (`nil`: every entry) touches,
    /// read before the removal.
    static func touched(in directory: URL, by urls: Set<URL>?) async -> [DownloadItem] {
        let written = (try? await DownloadQueue.written(in: directory)) ?? []
        return written.filter { item in
            guard case .completed = item.state else { return false }
            return urls?.contains(item.request.url) ?? true
        }
    }

    /// After the removal: tells a running serve's queue, and says what happens to `touched`.
    static func report(_ touched: [DownloadItem], in directory: URL) async {
        guard !touched.isEmpty else { return }
        let served = await ServedQueue.find(in: directory)
        _ = try? await served?.status(checkingStored: true)
        let ids = touched.map(\.request.id).joined(separator: ", ")
        let by = served == nil ? "the next `spool download run` (or serve)" : "the running serve"
        print(
            "\(touched.count == 1 ? "a completed download goes" : "\(touched.count) completed downloads go") back "
                + "to the queue: \(ids); \(by) downloads \(touched.count == 1 ? "it" : "them") again "
                + "(`spool download remove ID` drops one for good)")
    }
}
