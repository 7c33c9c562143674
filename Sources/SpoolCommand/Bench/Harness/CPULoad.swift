import Foundation
import SpoolTesting

/// Keeps every core busy while a measurement runs, the way a phone decoding video is busy: one process per
/// core spinning in a shell loop at normal priority, stopped by `stop()` (also on deinit).
final class CPULoad {
    private let spinners: [BackgroundProcess]

    /// Starts `count` spinning processes (default: one per core).
    init(count: Int = ProcessInfo.processInfo.activeProcessorCount) throws {
        spinners = try (0..<max(1, count)).map { _ in
            try BackgroundProcess(
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "while :; do :; done"])
        }
    }

    /// How many processes spin.
    var count: Int { spinners.count }

    func stop() {
        for spinner in spinners { spinner.stop() }
    }

    deinit { stop() }
}
