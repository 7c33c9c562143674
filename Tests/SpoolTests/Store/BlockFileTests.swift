import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// Checksums kept up incrementally while a block fills a chunk at a time equal the ones computed afresh from
/// the block's bytes, whatever order the chunks come in; a new reader verifies every block.
final class BlockFileTests: XCTestCase {
    private let length: Int64 = 5 * BlockLayout.blockSize + 1234
    private let salt = Data(repeating: 7, count: 16)

    func testChunksInAnyOrderLeaveTheChecksumsAFreshComputationGives() throws {
        for (name, codec) in [
            ("plain", ChecksumCodec() as any BlockCodec),
            ("sealed", try SealedCodec(key: Data(repeating: 1, count: 32))),
        ] {
            for seed in 1...6 as ClosedRange<UInt64> {
                try checkFill(codec: codec, seed: seed, label: "\(name), seed \(seed)")
            }
        }
    }

    private func checkFill(codec: any BlockCodec, seed: UInt64, label: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blockfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SeededGenerator(seed: seed)
        let content = Data((0..<Int(length)).map { _ in UInt8.random(in: 0...255, using: &random) })

        // Chunks of 1 byte to 40 KiB, mostly in order (as a download), some written ahead and some behind.
        var chunks: [Range<Int64>] = []
        var position: Int64 = 0
        while position < length {
            let end = min(length, position + Int64.random(in: 1...40_000, using: &random))
            chunks.append(position..<end)
            position = end
        }
        for _ in 0..<(chunks.count / 3) {
            chunks.swapAt(
                Int.random(in: 0..<chunks.count, using: &random), Int.random(in: 0..<chunks.count, using: &random))
        }

        let file = BlockFile(
            data: try EntryFile(url: directory.appendingPathComponent("data")),
            sums: try EntryFile(url: directory.appendingPathComponent("sums")), codec: codec)
        defer { file.close() }
        var present = ByteRangeSet()
        var edges = EdgeSums()
        var trusted = Set<Int64>()
        var hashers: [Int64: BlockHasher] = [:]
        for (index, chunk) in chunks.enumerated() {
            let bytes = content[Int(chunk.lowerBound)..<Int(chunk.upperBound)]
            let damaged = try file.write(
                bytes, at: chunk.lowerBound, present: &present, edges: &edges, trusted: &trusted, hashers: &hashers,
                length: length, salt: salt)
            XCTAssertEqual(damaged, [], "\(label): chunk \(index)")
            // Every partial block's checksum is the one its present bytes give when hashed afresh.
            for block in BlockLayout.blocks(in: 0..<length) {
                let area = BlockLayout.range(of: block, length: length)
                let segments = present.intersection(area)
                guard !segments.isEmpty, segments != [area] else { continue }
                var plain = Data()
                for part in segments { plain.append(content[Int(part.lowerBound)..<Int(part.upperBound)]) }
                XCTAssertEqual(
                    edges[block], codec.checksum(plain, block: block, salt: salt),
                    "\(label): block \(block) after chunk \(index)")
            }
        }
        XCTAssertEqual(present.ranges, [0..<length], label)
        XCTAssertEqual(edges, [:], "\(label): complete blocks keep their checksums in the sums file")

        // A reader that trusts nothing verifies each block against the sums file.
        var fresh = Set<Int64>()
        let read = try file.read(
            0..<length, present: present, edges: edges, trusted: &fresh, length: length, salt: salt)
        XCTAssertEqual(read, content, label)
        XCTAssertEqual(fresh.count, Int(BlockLayout.blocks(in: 0..<length).count), label)
        // And a damaged byte is still caught.
        try file.data.write(Data([content[70_000] ^ 0xFF]), at: 70_000)
        var again = Set<Int64>()
        XCTAssertThrowsError(
            try file.read(65_536..<70_001, present: present, edges: edges, trusted: &again, length: length, salt: salt),
            label)
    }
}
