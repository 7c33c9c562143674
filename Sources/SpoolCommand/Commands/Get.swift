import ArgumentParser
import Foundation
import Spool

/// `spool get URL`: caches a resource (or a range of it) and optionally writes it out.
struct Get: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cache a resource or a byte range of it; optionally write the bytes to a file.")

    @Argument(help: "The http or https URL.")
    var url: String

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp("Write the bytes to this file ('-' for standard output).", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Only these bytes: 'A-B' (inclusive) or 'A-' (to the end).", valueName: "A-B"))
    var range: String?

    @OptionGroup var headers: HeaderOptions
    @OptionGroup var limitOptions: LimitOptions
    @OptionGroup var cacheOptions: CacheOptions

    func validate() throws {
        if let range { _ = try RequestedRange(range) }
    }

    func run() async throws {
        let url = try parseOriginURL(url)
        try await withWritableCache(cacheOptions, headers: headers, limits: limitOptions) { cache in
            try await fetch(url, into: cache)
        }
    }

    private func fetch(_ url: URL, into cache: SpoolCache) async throws {
        let requested = try range.map(RequestedRange.init) ?? RequestedRange(first: 0, last: nil)
        // Before the content information: asking the origin for it brings (and caches) the first bytes.
        let cachedAtStart = await cache.cachedRanges(for: Resource(url: url))
        // What crosses the network, counted where it arrives: an origin that ignores ranges sends every byte
        // before the range too, and a user pays for those.
        let fetchedAtStart = await cache.statistics.bytesFetched
        let info = try await cache.contentInfo(
            for: url, firstRead: requested.first..<(requested.last.map { $0 + 1 } ?? Int64.max))
        guard requested.first < info.length || (requested.first == 0 && info.length == 0) else {
            throw SpoolError.rangeNotSatisfiable(requested: requested.first, length: info.length)
        }
        let end = min(info.length, requested.last.map { $0 + 1 } ?? info.length)
        let wanted = requested.first..<end
        let cachedBefore = cachedAtStart.intersection(wanted).reduce(0) { $0 + $1.count }

        let sink = try OutputSink(path: output)
        var progress = ProgressReporter(total: Int64(wanted.count))
        var done: Int64 = 0
        for try await chunk in cache.read(url, from: wanted.lowerBound, length: Int64(wanted.count)) {
            try sink.write(chunk)
            done += Int64(chunk.count)
            progress.update(done)
        }
        progress.update(done)
        progress.finish()
        try sink.close()
        guard done == Int64(wanted.count) else {
            throw CommandFailure(message: "got \(done) of \(wanted.count) bytes")
        }
        let fromOrigin = await cache.statistics.bytesFetched - fetchedAtStart
        FileHandle.standardError.write(
            Data(
                ("cached \(ByteCountText.format(done)) of \(CacheKeyPolicy.displayURL(for: url)): "
                    + "\(ByteCountText.format(fromOrigin)) from the origin, "
                    + "\(ByteCountText.format(Int64(cachedBefore))) from the cache\n")
                    .utf8))
    }
}

/// A `--range` argument: `A-B` inclusive, or `A-`.
struct RequestedRange {
    let first: Int64
    let last: Int64?

    init(first: Int64, last: Int64?) {
        self.first = first
        self.last = last
    }

    init(_ text: String) throws {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), first >= 0 else {
            throw ValidationError("range '\(text)' is not of the form A-B or A-")
        }
        if parts[1].isEmpty {
            last = nil
        } else {
            guard let last = Int64(parts[1]), last >= first else {
                throw ValidationError("range '\(text)': B must be a number not below A")
            }
            self.last = last
        }
        self.first = first
    }
}

/// Where `get -o` writes: a file (created or truncated), standard output, or nowhere.
final class OutputSink {
    private let handle: FileHandle?
    private let ownsHandle: Bool

    init(path: String?) throws {
        switch path {
        case nil:
            handle = nil
            ownsHandle = false
        case "-":
            handle = FileHandle.standardOutput
            ownsHandle = false
        case let path?:
            // Opened in place, created or truncated: Foundation's `createFile` writes a new file and renames it
            // over the path, which replaced `/dev/null` (or a FIFO, or a symlink's target) with a plain file.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw CommandFailure(message: "cannot open output file \(path): \(String(cString: strerror(errno)))")
            }
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            ownsHandle = true
        }
    }

    func write(_ data: Data) throws {
        try handle?.write(contentsOf: data)
    }

    func close() throws {
        if ownsHandle { try handle?.close() }
    }
}
