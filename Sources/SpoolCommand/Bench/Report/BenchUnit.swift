import Foundation

/// How a row's figures are shown; the JSON keeps them in base units (bytes, seconds).
enum BenchUnit: String, Sendable, Codable {
    case bytesPerSecond = "B/s"
    case seconds = "s"
    case bytes = "B"
    case ratio = "x"
    case count = "count"
    case requestsPerSecond = "req/s"
    case secondsPerGigabyte = "s/GB"

    /// `figure` for the table.
    func format(_ figure: Double) -> String {
        switch self {
        case .bytesPerSecond: return String(format: "%.0f MB/s", figure / 1e6)
        case .seconds: return figure >= 1 ? String(format: "%.2f s", figure) : String(format: "%.2f ms", figure * 1000)
        case .bytes: return String(format: "%.1f MiB", figure / 1_048_576)
        case .ratio: return String(format: "%.2f", figure)
        case .count: return String(format: "%.0f", figure)
        case .requestsPerSecond: return String(format: "%.0f/s", figure)
        case .secondsPerGigabyte: return String(format: "%.3f s/GB", figure)
        }
    }

    /// How a bound on this unit reads in the goal column.
    func formatBound(_ bound: Double) -> String {
        switch self {
        case .bytes: return String(format: "%.0f MiB", bound / 1_048_576)
        default: return format(bound)
        }
    }
}
