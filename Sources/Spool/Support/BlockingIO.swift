import Dispatch

/// Where the engine's blocking file work runs: reading and verifying stored blocks, writing and hashing
/// downloaded ones. A concurrent dispatch
/// queue, off Swift's cooperative thread pool, whose few threads a `pread` that waits on the disk would
/// otherwise hold up (every task of the process, not just the reader's), and off every lock.
enum BlockingIO {
    private static let queue = DispatchQueue(
        label: "Spool.BlockingIO", qos: .userInitiated, attributes: .concurrent)

    /// Runs `work` on the blocking-work queue and returns its result.
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(on: queue, work)
    }

    /// Starts `work` on the blocking-work queue without waiting for it: for bookkeeping nobody awaits, such as
    /// writing statistics.
    static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    /// A serial queue for work that must happen one job at a time (one entry's writes), on the same threads.
    static func serialQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label, target: queue)
    }

    /// Runs `work` on `serial` (one of `serialQueue`'s) and returns its result.
    static func run<T: Sendable>(on serial: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            serial.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
