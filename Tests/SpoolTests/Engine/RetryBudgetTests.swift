import Foundation
import XCTest

@testable import Spool

/// How `RetryBudget` counts failures for every kind of request (the engine's, a discovery, a read straight from
/// the origin): bytes between two failures start the count again; a silent link is retried for the outage
/// tolerance since the last byte, other transient failures a few times in a row.
final class RetryBudgetTests: XCTestCase {
    private let policy = FetchPolicy(retryLimit: 2, retryDelay: 0.1, maximumRetryDelay: 0.5, outageTolerance: 10)

    func testWhatEachFailureLeads() {
        struct Failure {
            var error: any Error
            var progressed: Bool
            var at: Double
            /// The wait before the next try, or `nil`: given up.
            var expected: Double?
        }
        let rows: [(name: String, failures: [Failure])] = [
            (
                "transient failures in a row, each wait twice the last, then given up",
                [
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 1, expected: 0.1),
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 2, expected: 0.2),
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 3, expected: nil),
                ]
            ),
            (
                "bytes between failures start the count again",
                [
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 1, expected: 0.1),
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 2, expected: 0.2),
                    Failure(error: SpoolError.network("reset"), progressed: true, at: 3, expected: 0.1),
                    Failure(error: SpoolError.network("reset"), progressed: false, at: 4, expected: 0.2),
                ]
            ),
            (
                "a silent link is retried within the outage tolerance since the last byte",
                [
                    Failure(error: SpoolError.timedOut(), progressed: false, at: 3, expected: 0.1),
                    Failure(error: SpoolError.timedOut(), progressed: false, at: 6, expected: 0.2),
                    Failure(error: SpoolError.timedOut(), progressed: false, at: 9.9, expected: 0.4),
                    Failure(error: SpoolError.timedOut(), progressed: false, at: 10, expected: nil),
                ]
            ),
            (
                "a refusal is not retried",
                [Failure(error: SpoolError.httpStatus(404), progressed: false, at: 1, expected: nil)]
            ),
            (
                "a server error is",
                [Failure(error: SpoolError.httpStatus(503), progressed: false, at: 1, expected: 0.1)]
            ),
            (
                "a new version is not",
                [Failure(error: SpoolError.resourceChanged, progressed: false, at: 1, expected: nil)]
            ),
        ]
        for row in rows {
            var budget = RetryBudget(startedAt: 0)
            for (index, failure) in row.failures.enumerated() {
                let wait = budget.failed(failure.error, progressed: failure.progressed, at: failure.at, policy: policy)
                XCTAssertEqual(wait, failure.expected, "\(row.name), failure \(index + 1)")
            }
        }
    }

    func testARestartCountsSilenceFromThere() {
        for restarted in [false, true] {
            var budget = RetryBudget(startedAt: 0)
            if restarted { budget.restart(at: 100) }
            // Within the retry limit, the count decides; past it, the silence since the (re)start.
            XCTAssertEqual(budget.failed(SpoolError.timedOut(), progressed: false, at: 101, policy: policy), 0.1)
            XCTAssertEqual(budget.failed(SpoolError.timedOut(), progressed: false, at: 102, policy: policy), 0.2)
            let third = budget.failed(SpoolError.timedOut(), progressed: false, at: 103, policy: policy)
            XCTAssertEqual(third, restarted ? 0.4 : nil, "restarted: \(restarted)")
        }
    }
}
