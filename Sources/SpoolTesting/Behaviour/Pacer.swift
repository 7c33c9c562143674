import Foundation

/// Spaces out body writes so a response averages a given byte rate.
struct Pacer {
    private let bytesPerSecond: Int?
    private let start = Date()

    init(bytesPerSecond: Int?) {
        self.bytesPerSecond = bytesPerSecond.map { max(1, $0) }
    }

    /// Chunk size: small under throttling so pacing is smooth, otherwise 64 KiB.
    var chunkSize: Int {
        guard let rate = bytesPerSecond else { return 64 * 1024 }
        return max(1, min(64 * 1024, rate / 20))
    }

    /// Sleeps until `sentSoFar` bytes are due, in short slices so `shouldStop` is honoured
    /// promptly; returns false if stopped.
    func wait(afterSending sentSoFar: Int64, shouldStop: () -> Bool) -> Bool {
        guard let rate = bytesPerSecond else { return true }
        let due = start.addingTimeInterval(Double(sentSoFar) / Double(rate))
        while true {
            if shouldStop() { return false }
            let remaining = due.timeIntervalSinceNow
            if remaining <= 0 { return true }
            Thread.sleep(forTimeInterval: min(remaining, 0.05))
        }
    }
}
