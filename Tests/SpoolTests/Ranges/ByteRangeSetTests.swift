import SpoolTesting
import XCTest

@testable import Spool

final class ByteRangeSetTests: XCTestCase {
    func testInsertCoalescesOverlappingAndAdjacentRanges() {
        var set = ByteRangeSet()
        set.insert(10..<20)
        set.insert(30..<40)
        XCTAssertEqual(set.ranges, [10..<20, 30..<40])
        set.insert(20..<30)
        XCTAssertEqual(set.ranges, [10..<40])
        set.insert(5..<12)
        set.insert(38..<50)
        XCTAssertEqual(set.ranges, [5..<50])
        set.insert(0..<0)
        XCTAssertEqual(set.ranges, [5..<50])
        set.insert(60..<70)
        set.insert(0..<100)
        XCTAssertEqual(set.ranges, [0..<100])
    }

    func testRemoveSplitsAndTrims() {
        var set = ByteRangeSet([0..<100])
        set.remove(40..<60)
        XCTAssertEqual(set.ranges, [0..<40, 60..<100])
        set.remove(30..<70)
        XCTAssertEqual(set.ranges, [0..<30, 70..<100])
        set.remove(0..<30)
        XCTAssertEqual(set.ranges, [70..<100])
        set.remove(100..<200)
        XCTAssertEqual(set.ranges, [70..<100])
        set.remove(69..<71)
        XCTAssertEqual(set.ranges, [71..<100])
    }

    func testQueries() {
        let set = ByteRangeSet([10..<20, 30..<40])
        XCTAssertFalse(set.contains(9))
        XCTAssertTrue(set.contains(10))
        XCTAssertTrue(set.contains(19))
        XCTAssertFalse(set.contains(20))
        XCTAssertTrue(set.contains(12..<18))
        XCTAssertFalse(set.contains(12..<31))
        XCTAssertTrue(set.contains(25..<25))
        XCTAssertEqual(set.range(containing: 35), 30..<40)
        XCTAssertNil(set.range(containing: 25))
        XCTAssertEqual(set.firstOffset(atOrAfter: 0), 10)
        XCTAssertEqual(set.firstOffset(atOrAfter: 15), 15)
        XCTAssertEqual(set.firstOffset(atOrAfter: 20), 30)
        XCTAssertNil(set.firstOffset(atOrAfter: 40))
        XCTAssertEqual(set.gaps(in: 0..<50), [0..<10, 20..<30, 40..<50])
        XCTAssertEqual(set.gaps(in: 12..<35), [20..<30])
        XCTAssertEqual(set.gaps(in: 12..<18), [])
        XCTAssertEqual(set.intersection(15..<35), [15..<20, 30..<35])
        XCTAssertEqual(set.byteCount, 20)
    }

    func testCodableRoundTrip() throws {
        let set = ByteRangeSet([0..<5, 9..<1 << 40])
        let decoded = try JSONDecoder().decode(ByteRangeSet.self, from: JSONEncoder().encode(set))
        XCTAssertEqual(decoded, set)
    }

    /// Thousands of random operations, each checked against a plain bitmap of the same bytes.
    func testRandomOperationsAgreeWithABitmap() {
        let size = 300
        for seed in UInt64(1)...40 {
            var generator = SeededGenerator(seed: seed)
            var set = ByteRangeSet()
            var bitmap = [Bool](repeating: false, count: size)
            for _ in 0..<150 {
                let a = Int.random(in: 0...size, using: &generator)
                let b = Int.random(in: 0...size, using: &generator)
                let range = Int64(min(a, b))..<Int64(max(a, b))
                if Bool.random(using: &generator) || Int.random(in: 0..<4, using: &generator) == 0 {
                    set.insert(range)
                    for i in range { bitmap[Int(i)] = true }
                } else {
                    set.remove(range)
                    for i in range { bitmap[Int(i)] = false }
                }
                assertInvariants(set)
                XCTAssertEqual(set.ranges, Self.runs(of: bitmap), "seed \(seed)")
                XCTAssertEqual(set.byteCount, Int64(bitmap.filter { $0 }.count))
                let probe = Int.random(in: 0..<size, using: &generator)
                XCTAssertEqual(set.contains(Int64(probe)), bitmap[probe])
                let expectedNext = (probe..<size).first { bitmap[$0] }.map(Int64.init)
                XCTAssertEqual(set.firstOffset(atOrAfter: Int64(probe)), expectedNext)
                let c = Int.random(in: 0...size, using: &generator)
                let query = Int64(min(probe, c))..<Int64(max(probe, c))
                let gapBits = bitmap.enumerated().map { !$0.element && query.contains(Int64($0.offset)) }
                XCTAssertEqual(set.gaps(in: query), Self.runs(of: gapBits), "seed \(seed) gaps in \(query)")
                let presentBits = bitmap.enumerated().map { $0.element && query.contains(Int64($0.offset)) }
                XCTAssertEqual(set.intersection(query), Self.runs(of: presentBits))
                XCTAssertEqual(set.contains(query), !gapBits.contains(true))
            }
        }
    }

    private func assertInvariants(_ set: ByteRangeSet, file: StaticString = #filePath, line: UInt = #line) {
        for range in set.ranges { XCTAssertFalse(range.isEmpty, file: file, line: line) }
        for (a, b) in zip(set.ranges, set.ranges.dropFirst()) {
            XCTAssertLessThan(
                a.upperBound, b.lowerBound, "ranges must be sorted, disjoint and not adjacent", file: file, line: line)
        }
    }

    /// The maximal runs of `true` in `bits`, as ranges.
    private static func runs(of bits: [Bool]) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        var start: Int?
        for (index, bit) in bits.enumerated() {
            if bit, start == nil { start = index }
            if !bit, let begun = start {
                result.append(Int64(begun)..<Int64(index))
                start = nil
            }
        }
        if let begun = start { result.append(Int64(begun)..<Int64(bits.count)) }
        return result
    }
}
