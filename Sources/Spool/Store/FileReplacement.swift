import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a small file whole and atomically: written to a temporary file beside it, synced once when durable,
/// then renamed over it, so a crash or a SIGKILL at any moment leaves the old file or the new one, never a torn
/// one. The index's records, the download queue, the statistics and the playback reports are written this way.
///
/// Why not `Data.write(to:options: .atomic)`: on Linux it syncs by itself, so a caller that must also sync on
/// Apple's platforms (where it does not) paid two syncs; it names its temporary file with a `UUID`, which reads
/// the system's random source; and it creates the file with the umask's mode (usually `0644`), which lets other
/// users of the machine read what it holds. Here the file is `0600` and costs one sync at most.
package enum FileReplacement {
    /// Numbers this process's temporary files, so concurrent replacements of one file never share one.
    private static let counter = LockedBox<UInt64>(0)

    /// Replaces the file at `url` with `bytes`, readable and writable by its owner only. With `durable`, the
    /// bytes are on disk before the rename makes them the file's (the rename itself is durable once the
    /// directory is synced, which is the caller's choice). Throws `SpoolError.storage`, leaving the old file.
    package static func replace(_ url: URL, with bytes: Data, durable: Bool) throws {
        BlockingIO.willBlock("replacing a file")
        let number = counter.withLock { counter -> UInt64 in
            counter &+= 1
            return counter
        }
        // The process id and a counter: unique among the processes that share the directory.
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(number).tmp")
        do {
            let file = try EntryFile(url: temporary)
            defer { file.close() }
            try file.write(bytes, at: 0)
            // A file a process with the same id left behind (it crashed before its rename) may be longer.
            try file.truncate(to: Int64(bytes.count))
            if durable { file.synchronize() }
            guard rename(temporary.path, url.path) == 0 else {
                throw SpoolError.storage("rename: \(EntryFile.errnoText())")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error as? SpoolError ?? SpoolError.storage(error.localizedDescription)
        }
    }
}
