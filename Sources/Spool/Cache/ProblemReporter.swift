import Foundation

/// Passes `SpoolProblem`s to the app, each storage failure once until writes work again, so a full disk
/// is one report, not one per chunk.
final class ProblemReporter: Sendable {
    private let handler: (@Sendable (SpoolProblem) -> Void)?
    private let storageFailing = LockedBox(false)

    init(handler: (@Sendable (SpoolProblem) -> Void)?) {
        self.handler = handler
    }

    func report(_ problem: SpoolProblem) {
        if case .storageFailed = problem {
            let first = storageFailing.withLock { failing in
                defer { failing = true }
                return !failing
            }
            guard first else { return }
        }
        handler?(problem)
    }

    /// A write worked: the next storage failure is news again.
    func storageWorked() {
        storageFailing.withLock { $0 = false }
    }

    /// Whether writes failed last time they were tried.
    var isStorageFailing: Bool {
        storageFailing.withLock { $0 }
    }
}
