import Foundation

/// The bytes this process has read through system calls so far (`rchar` in `/proc/self/io`), from disk or
/// from the page cache alike; `nil` where the figure is not available (not Linux).
enum ProcessIO {
    static func bytesRead() -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") })
        else { return nil }
        return Int64(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
    }
}
