import Foundation
import Spool

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The download queue on disk: `downloads.json` in the cache directory, `0600`, replaced whole and atomically
/// (written, synced once, renamed, the directory synced: `FileReplacement`) on every change of the queue, so a
/// crash or a SIGKILL at any moment leaves the queue before or after the change, never a torn one. Progress is
/// not written: it is the cache's own record of what is stored.
///
/// One process runs a cache's queue: it holds an exclusive `flock` of `downloads.lock` while it does. Every
/// method blocks (`BlockingIO`).
final class DownloadQueueFile: Sendable {
    /// What the file holds.
    private struct Contents: Codable {
        var version = 1
        var items: [DownloadSchedule.Entry]
    }

    let url: URL
    /// The lock's descriptor; `nil` once `unlock()` released it.
    private let lockDescriptor: LockedBox<Int32?>

    /// Opens the queue of the cache in `directory`, taking its lock; throws `DownloadQueue.Failure.inUse` when
    /// another process runs it.
    init(directory: URL) throws {
        BlockingIO.willBlock("locking the download queue")
        url = directory.appendingPathComponent("downloads.json")
        let lockPath = directory.appendingPathComponent("downloads.lock").path
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DownloadQueue.Failure.storage("cannot open \(lockPath): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw DownloadQueue.Failure.inUse(directory.path)
        }
        lockDescriptor = LockedBox(descriptor)
    }

    deinit {
        unlock()
    }

    /// Releases the lock (closing the descriptor does): another queue may run the cache's downloads now, and
    /// this one writes nothing more.
    func unlock() {
        if let descriptor = lockDescriptor.withLock({ descriptor in
            defer { descriptor = nil }
            return descriptor
        }) {
            close(descriptor)
        }
    }

    /// The queue written down in `directory`, read without the lock (the file is only ever replaced whole): for
    /// a process that shows the queue another one runs. Throws when it does not parse.
    static func read(in directory: URL) throws -> [DownloadSchedule.Entry] {
        BlockingIO.willBlock("reading the download queue")
        let url = directory.appendingPathComponent("downloads.json")
        guard let data = try? Data(contentsOf: url) else { return [] }
        do {
            return try JSONDecoder().decode(Contents.self, from: data).items
        } catch {
            throw DownloadQueue.Failure.storage("the download queue did not parse: \(error)")
        }
    }

    /// The queue written down; empty when there is none. A file that does not parse is set aside
    /// (`downloads.json.unreadable`) and reported in `problem`, not lost.
    func load() -> (entries: [DownloadSchedule.Entry], problem: String?) {
        BlockingIO.willBlock("reading the download queue")
        guard let data = try? Data(contentsOf: url) else { return ([], nil) }
        do {
            let contents = try JSONDecoder().decode(Contents.self, from: data)
            return (contents.items, nil)
        } catch {
            let aside = url.appendingPathExtension("unreadable")
            try? FileManager.default.removeItem(at: aside)
            try? FileManager.default.moveItem(at: url, to: aside)
            return ([], "the download queue did not parse (\(error)); kept as \(aside.lastPathComponent)")
        }
    }

    /// Replaces the queue with `entries`, durably.
    func save(_ entries: [DownloadSchedule.Entry]) throws {
        BlockingIO.willBlock("writing the download queue")
        guard lockDescriptor.withLock({ $0 != nil }) else { throw DownloadQueue.Failure.stopped }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            // Readable by the user only: the queue names what the user downloads, signed URLs included.
            try FileReplacement.replace(url, with: try encoder.encode(Contents(items: entries)), durable: true)
            // The rename itself is durable once the directory is synced.
            let directory = open(url.deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
            if directory >= 0 {
                _ = fsync(directory)
                close(directory)
            }
        } catch {
            throw DownloadQueue.Failure.storage("cannot write the download queue: \(error)")
        }
    }
}
