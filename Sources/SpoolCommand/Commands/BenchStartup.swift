import ArgumentParser
import Foundation

/// `spool bench startup`: how long opening a cache of many entries, and listing it, takes.
struct BenchStartup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup",
        abstract:
            "Time opening a cache of many entries (with and without limits), a first read from it, and listing it.",
        discussion: """
            Fills the cache with --entries small resources through the library (read from a local origin \
            under stable cache keys; entries already there are kept), stops the origin, then opens a new \
            SpoolCache on the directory --runs times, timing each step and counting the bytes the process \
            read meanwhile (Linux: rchar of /proc/self/io). Reads can only come from disk: the origin is gone. \
            The file system's cache is warm (the files were just written), so the figures are those of an \
            app restarted soon after, not of a cold boot. Without --cache a temporary directory is used and \
            removed afterwards.
            """)

    @Option(help: ArgumentHelp("How many entries the cache holds.", valueName: "n"))
    var entries = 10_000

    @Option(name: .customLong("entry-size"), help: ArgumentHelp("The bytes of each entry.", valueName: "bytes"))
    var entrySize: Int64 = 16 * 1024

    @Option(help: ArgumentHelp("How many times each step is timed; the table shows the median.", valueName: "n"))
    var runs = 5

    @Option(
        name: .long,
        help: ArgumentHelp("Fill and measure this cache directory (kept) instead of a temporary one.", valueName: "dir")
    )
    var cache: String?

    func validate() throws {
        guard entries >= 1 else { throw ValidationError("--entries must be at least 1") }
        guard entrySize >= 1 else { throw ValidationError("--entry-size must be at least 1") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() async throws {
        let directory =
            cache.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "spool-bench-\(UUID().uuidString)", isDirectory: true)
        defer { if cache == nil { try? FileManager.default.removeItem(at: directory) } }
        let benchmark = StartupBenchmark(directory: directory, entries: entries, entrySize: entrySize)

        let fill = try await benchmark.fill()
        print("cache:   \(directory.path)\(cache == nil ? " (temporary, removed afterwards)" : "")")
        print(
            "entries: \(entries) of \(entrySize) bytes; \(fill.created) created now through a local origin "
                + "in \(String(format: "%.1f", fill.seconds)) s (not part of the figures), \(entries - fill.created) "
                + "already there"
        )
        print(
            "runs:    \(runs), each on a new SpoolCache; origin stopped, so every byte read comes from disk; warm "
                + "file-system cache\n"
        )
        let table = try await benchmark.measure(runs: runs, base: fill.originBase)
        print(table.rendered())
    }
}
