import Foundation

/// The cache directory's `playback.json`: the latest playback reports of every process that used the
/// directory, newest last, at most `capacity` of them, so that `spool stats` and another process see them.
///
/// Read and written only on `BlockingIO`. Processes add their reports under an exclusive `flock` of
/// `playback.lock`; the file is replaced atomically (`FileReplacement`), so a crash loses at most the report
/// being added, and a damaged file costs the reports, never the cache.
struct PlaybackReportFile: Sendable {
    /// How many reports the file keeps.
    static let capacity = 500

    private let file: URL
    private let lockFile: URL

    init(directory: URL) {
        file = directory.appendingPathComponent("playback.json")
        lockFile = directory.appendingPathComponent("playback.lock")
    }

    /// Adds `reports` to the file, dropping the oldest past `capacity`. Blocks; a failure (a full disk) loses
    /// them from the file only.
    func add(_ reports: [PlaybackReport]) {
        guard !reports.isEmpty, let lock = try? EntryFile(url: lockFile) else { return }
        defer { lock.close() }
        _ = lock.lock(exclusive: true)
        let all = (read() + reports).suffix(Self.capacity)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        // Readable by the user only (what a user played is theirs); not synced, as a crash costs a report at most.
        guard let data = try? encoder.encode(Array(all)) else { return }
        try? FileReplacement.replace(file, with: data, durable: false)
    }

    /// The reports in the file, oldest first; none when there is no file or it cannot be decoded. Blocks.
    func read() -> [PlaybackReport] {
        BlockingIO.willBlock("reading playback.json")
        guard let data = try? Data(contentsOf: file) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return (try? decoder.decode([PlaybackReport].self, from: data)) ?? []
    }
}
