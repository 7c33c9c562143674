import Foundation
import XCTest

@testable import Spool

/// When a chunk's write goes round again, and when it gives up (`WriteRounds`). Table-driven, no I/O.
final class WriteRoundsTests: XCTestCase {
    private enum Kind: Equatable {
        case done, again, fail
    }

    private func kind(_ next: WriteRounds.Next) -> Kind {
        switch next {
        case .done: return .done
        case .again: return .again
        case .fail: return .fail
        }
    }

    func testWhatFollowsAWrite() {
        let failure = SpoolError.storage("write: No space left on device")
        let rows: [(name: String, applied: Bool, failure: (any Error)?, damage: Bool, expected: Kind)] = [
            ("written and taken in", true, nil, false, .done),
            ("the entry changed meanwhile: again", false, nil, false, .again),
            ("damage found on the way: again, for the bytes it un-stored", true, nil, true, .again),
            ("failed part-way, taken in: the failure", true, failure, false, .fail),
            ("failed while the entry changed: again, it may have been the change", false, failure, false, .again),
        ]
        for row in rows {
            var rounds = WriteRounds()
            XCTAssertEqual(
                kind(rounds.written(applied: row.applied, failure: row.failure, foundDamage: row.damage)),
                row.expected, row.name)
        }
    }

    func testEveryKindOfRoundIsBounded() {
        let rows: [(name: String, round: (inout WriteRounds) -> WriteRounds.Next)] = [
            ("a plan that keeps finding work owed", { $0.planStale() }),
            ("an entry that keeps changing", { $0.written(applied: false, failure: nil, foundDamage: false) }),
            ("a disk that keeps failing checks", { $0.written(applied: true, failure: nil, foundDamage: true) }),
        ]
        for row in rows {
            var rounds = WriteRounds()
            for index in 1...WriteRounds.limit {
                XCTAssertEqual(kind(row.round(&rounds)), .again, "\(row.name), round \(index)")
            }
            XCTAssertEqual(kind(row.round(&rounds)), .fail, "\(row.name): gives up past the limit")
        }
    }
}
