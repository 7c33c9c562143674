import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a lock: the small lock box the engine uses instead of actors where state changes
/// must be synchronous (delegate callbacks, `deinit`), and `Mutex` is not available on iOS 15.
///
/// On Linux the lock is glibc's adaptive mutex, which spins a moment before it sleeps: the engine's locks are
/// held for bookkeeping only, a microsecond or two, and under 100 connections served from two event loops a
/// plain mutex put a waiter to sleep and woke it again (two system calls) far more often than the holder took
/// to finish. Elsewhere it is `NSLock`.
///
/// It is the package's one lock: the proxy, the AsyncHTTPClient transport and the command line use it too, so
/// that every lock has a place in one order (`LockRank`), checked in debug builds (`ConcurrencyChecks`).
package final class LockedBox<Value>: @unchecked Sendable {
    private let lock = PlatformLock()
    private let rank: LockRank
    private var value: Value

    /// A box holding `value`, whose lock sits at `rank` in the lock order (a leaf unless said otherwise).
    package init(_ value: Value, rank: LockRank = .leaf) {
        self.value = value
        self.rank = rank
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if DEBUG
        ConcurrencyChecks.willLock(rank)
        defer { ConcurrencyChecks.didUnlock(rank) }
        #endif
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

#if canImport(Glibc)
/// A `pthread_mutex_t` of type `PTHREAD_MUTEX_ADAPTIVE_NP`, at a stable address.
private final class PlatformLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        let result = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "pthread_mutex_lock failed: \(result)")
    }

    func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "pthread_mutex_unlock failed: \(result)")
    }
}
#else
private typealias PlatformLock = NSLock
#endif
