import ArgumentParser
import Foundation
import Spool

/// `--max-size` and `--max-age`: the cache limits of the commands that write to the cache.
struct LimitOptions: ParsableArguments {
    // Unconditional: `--max-size -5` is a bad size, told as such, not a missing one.
    @Option(
        name: .customLong("max-size"), parsing: .unconditional,
        help: ArgumentHelp(
            "Keep the cache under this size, evicting least recently used entries as data is written: 2GB, 500MB, "
                + "1.5GiB, 750KB or bytes (GB = 10^9, GiB = 2^30).",
            valueName: "size"))
    var maxSize: String?

    @Option(
        name: .customLong("max-age"), parsing: .unconditional,
        help: ArgumentHelp(
            "Evict entries not read or written for this long: 30d, 12h, 45m or 90s.", valueName: "age"))
    var maxAge: String?

    func validate() throws {
        _ = try limits()
    }

    /// The limits the options set; `.unlimited` when neither is given.
    func limits() throws -> CacheLimits {
        CacheLimits(
            maxBytes: try maxSize.map { text in try Self.parse("--max-size", text) { try ByteSize(parsing: $0).bytes }
            },
            maxAge: try maxAge.map { text in try Self.parse("--max-age", text) { try AgeText(parsing: $0).seconds } })
    }

    /// `parse(text)`, its failure a usage error naming `option`.
    private static func parse<T>(_ option: String, _ text: String, _ parse: (String) throws -> T) throws -> T {
        do {
            return try parse(text)
        } catch let invalid as ArgumentText.Invalid {
            throw ValidationError("\(option): \(invalid.description)")
        }
    }

    /// One line stating the limits in force, for standard error; `nil` when there are none.
    func summary() throws -> String? {
        let limits = try limits()
        var parts: [String] = []
        if let bytes = limits.maxBytes, let maxSize { parts.append("at most \(bytes) bytes (\(maxSize))") }
        if let seconds = limits.maxAge, let maxAge {
            parts.append("entries unused for \(String(format: "%.0f", seconds)) s (\(maxAge)) are evicted")
        }
        return parts.isEmpty ? nil : "spool: cache limits: " + parts.joined(separator: ", ")
    }
}
