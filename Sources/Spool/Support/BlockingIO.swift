import Dispatch

/// Where the engine's blocking file work runs: reading and verifying stored blocks. A concurrent dispatch
/// queue, off Swift's cooperative thread pool, whose few threads a `pread` that waits on the disk would
/// otherwise hold up (every task of the process, not just the reader's), and off every lock.
enum BlockingIO {
    private static let queue = DispatchQueue(
        label: "Spool.BlockingIO", qos: .userInitiated, attributes: .concurrent)

    /// Runs `work` on the blocking-work queue and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
