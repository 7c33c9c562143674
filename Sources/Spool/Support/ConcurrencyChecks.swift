#if DEBUG
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The written concurrency model (the Concurrency article), checked at run time in debug builds: a lock taken
/// out of the lock order, blocking work under a lock, and blocking work on a Swift task (the cooperative pool,
/// whose few threads every task of the process shares) stop the process with a message naming what happened
/// where, so the test that did it fails. Release builds compile none of it.
package enum ConcurrencyChecks {
    /// What one thread holds now, kept in its thread-specific slot.
    private final class ThreadState {
        var held: [LockRank] = []
        /// Nonzero inside `BlockingIO`'s work and inside `allowingBlocking`.
        var blockingAllowed = 0
        /// The violations seen inside `violations(in:)`, which records them instead of stopping.
        var recorded: [String]?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            #if canImport(Glibc)
            guard let pointer else { return }
            #endif
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        precondition(result == 0, "pthread_key_create failed: \(result)")
        return key
    }()

    private static var current: ThreadState {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }
        let state = ThreadState()
        pthread_setspecific(key, Unmanaged.passRetained(state).toOpaque())
        return state
    }

    /// Stops the process: a test that breaks the model fails, with the message in its log.
    private static func fail(_ message: String) {
        let state = current
        guard state.recorded != nil else { preconditionFailure(message) }
        state.recorded?.append(message)
    }

    /// The violations `body` commits on this thread, recorded instead of stopping the process: for the tests
    /// of these checks.
    package static func violations(in body: () throws -> Void) rethrows -> [String] {
        let state = current
        let outer = state.recorded
        state.recorded = []
        defer { state.recorded = outer }
        try body()
        return state.recorded ?? []
    }

    /// Called before a `LockedBox` of `rank` is locked.
    package static func willLock(_ rank: LockRank) {
        let state = current
        if let top = state.held.last, top.level >= rank.level {
            fail(
                "Lock order: \(rank.name) (level \(rank.level)) taken while holding \(top.name) (level \(top.level))")
        }
        state.held.append(rank)
    }

    /// Called after a `LockedBox` of `rank` was unlocked.
    package static func didUnlock(_ rank: LockRank) {
        let state = current
        guard let index = state.held.lastIndex(of: rank) else {
            return fail("Lock order: \(rank.name) unlocked on a thread that does not hold it")
        }
        state.held.remove(at: index)
    }

    /// Called by every blocking file operation: it must hold no lock, and run on `BlockingIO` or on a thread no
    /// Swift task is running on (an app's own thread, a dispatch queue, a test's main thread).
    package static func willBlock(_ what: StaticString) {
        let state = current
        if let top = state.held.last {
            return fail("Blocking work (\(what)) under the lock \(top.name)")
        }
        guard state.blockingAllowed == 0 else { return }
        let onTask = withUnsafeCurrentTask { $0 != nil }
        if onTask {
            fail("Blocking work (\(what)) on a Swift task: run it on BlockingIO")
        }
    }

    /// Runs `body` as blocking work's one place (`BlockingIO`'s threads), or as a documented exception.
    package static func allowingBlocking<Result>(_ body: () throws -> Result) rethrows -> Result {
        let state = current
        state.blockingAllowed += 1
        defer { state.blockingAllowed -= 1 }
        return try body()
    }
}
#else
/// Release builds check nothing (see the debug build's `ConcurrencyChecks`).
package enum ConcurrencyChecks {
    /// Runs `body`.
    @inline(__always)
    package static func allowingBlocking<Result>(_ body: () throws -> Result) rethrows -> Result {
        try body()
    }
}
#endif
