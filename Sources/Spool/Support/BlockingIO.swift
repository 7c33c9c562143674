import Dispatch

/// Where the engine's blocking file work runs: reading and verifying stored blocks, writing and hashing
/// downloaded ones. A concurrent dispatch
/// queue, off Swift's cooperative thread pool, whose few threads a `pread` that waits on the disk would
/// otherwise hold up (every task of the process, not just the reader's), and off every lock.
///
/// Every blocking file operation says so first (`willBlock`); debug builds then check that it runs here (or on
/// a thread no Swift task runs on, such as an app's own or a test's) and under no lock (`ConcurrencyChecks`).
package enum BlockingIO {
    /// No quality of service of its own: each job runs at its submitter's (Dispatch's propagation), so a
    /// player's read waits on the disk at the player's priority and a download's write at the download's. With
    /// `.userInitiated` for all, every job outranked the thread that queued it (on Linux its threads ran at
    /// nice -2 beside the proxy's event loops at 0), and each wake of one could preempt the loop that woke
    /// it on a busy machine. Chromium's cold start through a fresh `spool serve` with every core busy
    /// (`spool bench run --only browser`, AMD EPYC, 2 cores, 35 plays each way, interleaved): 70.5 ms before,
    /// 62.7 ms after (medians), against the slice proxy's 62.9 and 62.5 ms; quiet, 59.6 and 58.2 ms.
    private static let queue = DispatchQueue(
        label: "Spool.BlockingIO", qos: .unspecified, attributes: .concurrent)

    /// Runs `work` on the blocking-work queue and returns its result.
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await run(on: queue, work)
    }

    /// Starts `work` on the blocking-work queue without waiting for it: for bookkeeping nobody awaits, such as
    /// writing statistics.
    package static func start(_ work: @escaping @Sendable () -> Void) {
        queue.async { blocking(work) }
    }

    /// Starts `work` on `serial` (one of `serialQueue`'s) without waiting for it.
    package static func start(on serial: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        serial.async { blocking(work) }
    }

    /// A serial queue for work that must happen one job at a time (one entry's writes), on the same threads.
    package static func serialQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label, target: queue)
    }

    /// Runs `work` on `serial` (one of `serialQueue`'s) and returns its result.
    package static func run<T: Sendable>(on serial: DispatchQueue, _ work: @escaping @Sendable () throws -> T)
        async throws
        -> T
    {
        try await withCheckedThrowingContinuation { continuation in
            serial.async { continuation.resume(with: Result { try blocking(work) }) }
        }
    }

    /// Runs `work` synchronously on `serial` (one of `serialQueue`'s), for a caller that may block: an app's
    /// synchronous call, a `deinit`.
    package static func sync<T>(on serial: DispatchQueue, _ work: () throws -> T) rethrows -> T {
        // Waiting for the queue blocks the caller as much as the work itself does.
        willBlock("waiting for a serial BlockingIO queue")
        return try serial.sync { try blocking(work) }
    }

    /// Says that blocking file work (`what`) is about to run: debug builds check that it runs on `BlockingIO`
    /// or off Swift's tasks, and under no lock. Release builds do nothing.
    @inline(__always)
    package static func willBlock(_ what: StaticString) {
        #if DEBUG
        ConcurrencyChecks.willBlock(what)
        #endif
    }

    /// Runs `work` as this queue's work: blocking allowed (debug builds track it).
    private static func blocking<T>(_ work: () throws -> T) rethrows -> T {
        #if DEBUG
        return try ConcurrencyChecks.allowingBlocking(work)
        #else
        return try work()
        #endif
    }
}
