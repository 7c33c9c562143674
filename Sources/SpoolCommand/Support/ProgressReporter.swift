import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Shows a transfer's progress on stderr: a bar redrawn in place on a terminal, a plain line per tenth
/// otherwise (logs and pipes do not want carriage returns).
struct ProgressReporter {
    private let total: Int64
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private var lastDrawn = Date.distantPast
    private var lastTenth = -1

    init(total: Int64) {
        self.total = total
    }

    mutating func update(_ done: Int64) {
        let fraction = total == 0 ? 1 : Double(done) / Double(total)
        if isTerminal {
            guard Date().timeIntervalSince(lastDrawn) > 0.1 || done == total else { return }
            lastDrawn = Date()
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            write(
                String(
                    format: "\r[%@] %5.1f%% %@ / %@", bar, fraction * 100, ByteCountText.format(done),
                    ByteCountText.format(total)))
        } else {
            let tenth = Int(fraction * 10)
            guard tenth > lastTenth else { return }
            lastTenth = tenth
            write(String(format: "progress: %3d%% (%lld of %lld bytes)\n", tenth * 10, done, total))
        }
    }

    func finish() {
        if isTerminal { write("\n") }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
