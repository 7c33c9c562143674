import Foundation
import XCTest

@testable import Spool

/// Eviction's event on the engine state (`shed`): it chooses from what the state itself knows (the readers'
/// positions, the blocks' last uses), gives the blocks up in one step (stored bytes, checks, uses), and a new
/// version forgets the uses. Table-driven, no I/O.
final class SheddingStateTests: XCTestCase {
    private let block = BlockLayout.blockSize
    private let start = Date(timeIntervalSinceReferenceDate: 1000)

    /// Ten stored blocks, read in order by one reader up to block `readTo`, one second apart.
    private func state(readTo: Int64) -> (EngineState, reader: Int) {
        var state = EngineState(
            policy: FetchPolicy(maximumPieceSize: 2 * block), info: ContentInfo(length: 10 * block),
            stored: ByteRangeSet([0..<(10 * block)]))
        let reader = state.addReader(requestedEnd: nil)
        for index in 0..<readTo {
            state.delivered(
                index * block..<(index + 1) * block, reader: reader, at: start.addingTimeInterval(Double(index)))
        }
        return (state, reader)
    }

    func testEvictionChoosesFromTheStatesOwnReadersAndUses() {
        let rows: [(name: String, readTo: Int64, bytes: Int64, held: [Range<Int64>], expected: [Int64])] = [
            // Blocks 8 and 9 were never read here: the oldest. The reader at block 8 spares 8 and 9 (its piece).
            ("the reader's next piece stays, the oldest read go", 8, 3 * block, [], [0, 1, 2]),
            ("never read here: older than any read", 3, 2 * block, [], [5, 6]),
            ("a slice being sent stays", 8, 2 * block, [0..<block], [1, 2]),
            ("nothing asked, nothing given", 8, 0, [], []),
        ]
        for row in rows {
            var (state, _) = state(readTo: row.readTo)
            let before = state.checks.planInvalidations
            let freed = state.shed(row.bytes, held: row.held)
            XCTAssertEqual(freed, Int64(row.expected.count) * block, row.name)
            let given = ByteRangeSet(row.expected.map { $0 * block..<($0 + 1) * block })
            for range in given.ranges {
                XCTAssertTrue(state.stored.intersection(range).isEmpty, "\(row.name): no longer stored")
                XCTAssertTrue(state.checks.distrusted.contains(range), "\(row.name): never taken back")
            }
            XCTAssertEqual(ByteRangeSet(state.checks.discards), given, "\(row.name): slots to clear")
            XCTAssertTrue(
                Set(state.blockUse.lastUse.keys).isDisjoint(with: row.expected), "\(row.name): uses forgotten")
            XCTAssertEqual(state.checks.planInvalidations != before, freed > 0, "\(row.name): plans stale")
        }
    }

    func testANewVersionForgetsTheUses() {
        var (state, _) = state(readTo: 5)
        XCTAssertFalse(state.blockUse.lastUse.isEmpty)
        state.dropVersion()
        XCTAssertTrue(state.blockUse.lastUse.isEmpty)
    }
}
