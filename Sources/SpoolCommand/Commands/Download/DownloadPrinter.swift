import Foundation
import Spool
import SpoolDownloads

/// Prints downloads' states on stderr as they change: a line per new state, and per tenth of a download's bytes.
struct DownloadPrinter {
    private var shown: [String: String] = [:]
    /// What each line starts with.
    private let prefix: String

    /// A printer whose lines start with `prefix`.
    init(prefix: String = "") {
        self.prefix = prefix
    }

    /// Prints `state` of the download `id` unless it says what was printed last.
    mutating func show(_ id: String, _ state: DownloadState) {
        let line = Self.describe(state)
        guard shown[id] != line else { return }
        shown[id] = line
        FileHandle.standardError.write(Data("\(prefix)\(id): \(line)\n".utf8))
    }

    /// What a state looks like in the list and in the progress lines; downloads in tenths, so a line per tenth.
    static func describe(_ state: DownloadState, exact: Bool = false) -> String {
        switch state {
        case .queued: return "queued"
        case .waiting(let blockers): return "waiting for " + blockers.map(\.rawValue).joined(separator: ", ")
        case .downloading(let bytes, let total):
            guard total > 0 else { return "downloading, \(ByteCountText.format(bytes))" }
            let percent = Double(bytes) / Double(total) * 100
            let shown = exact ? percent : (percent / 10).rounded(.down) * 10
            return String(format: "downloading, %.0f%% of %@", shown, ByteCountText.format(total))
        case .paused: return "paused"
        case .completed(let bytes): return "completed, \(ByteCountText.format(bytes))"
        case .failed(let reason): return "failed: \(reason)"
        }
    }
}
