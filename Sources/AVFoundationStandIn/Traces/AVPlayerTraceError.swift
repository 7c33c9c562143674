#if os(Linux)
import Foundation

/// Why a traces file could not be read.
public enum AVPlayerTraceError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// Line `line` (1-based) of `file` is not a valid trace.
    case invalidLine(file: String, line: Int, reason: String)

    /// A message naming the file and the line.
    public var description: String {
        switch self {
        case .invalidLine(let file, let line, let reason):
            "\(file):\(line): not a valid AVPlayer trace: \(reason)"
        }
    }

    /// Same as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
#endif
