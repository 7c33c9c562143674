import Foundation

/// Passes `SpoolProblem`s to the app, a storage failure once until writes have worked again for a while
/// (a nearly full disk lets some writes through), so a full disk is one report, not one per chunk.
package final class ProblemReporter: Sendable {
    private let handler: (@Sendable (SpoolProblem) -> Void)?
    private let storageFailing = LockedBox(false)
    /// Bytes written without a failure since the last one.
    private let writtenSinceFailure = LockedBox<Int64>(0)
    private static let recovery: Int64 = 16 * 1024 * 1024

    init(handler: (@Sendable (SpoolProblem) -> Void)?) {
        self.handler = handler
    }

    package func report(_ problem: SpoolProblem) {
        if case .storageFailed = problem {
            writtenSinceFailure.withLock { $0 = 0 }
            let first = storageFailing.withLock { failing in
                defer { failing = true }
                return !failing
            }
            guard first else { return }
        }
        handler?(problem)
    }

    /// `bytes` were written: after enough of them without a failure, the next one is news again.
    func storageWorked(_ bytes: Int64) {
        guard storageFailing.withLock({ $0 }) else { return }
        let recovered = writtenSinceFailure.withLock { written in
            written += bytes
            return written >= Self.recovery
        }
        if recovered { storageFailing.withLock { $0 = false } }
    }
}
