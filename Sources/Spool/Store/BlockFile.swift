import Foundation

/// One entry's bytes and their checksums: written, read and verified a 64 KiB block at a time, so a
/// damaged byte is found when it is read and costs one block, not the entry.
///
/// A complete block's checksum sits in `data/KEY.sums`, written before any record claims the block and
/// never changed afterwards. A partial block (the edges of cached ranges) changes as bytes arrive, so its
/// checksum travels with the claim itself, in the index record (`EdgeSums`): a record from before a crash
/// vouches for exactly the bytes it claims, whatever was written after it.
///
/// Callers pass what their index state says is present and serialize the calls for one entry.
final class BlockFile: Sendable {
    let data: EntryFile
    private let sums: EntryFile
    private let codec: any BlockCodec

    init(data: EntryFile, sums: EntryFile, codec: any BlockCodec) {
        self.data = data
        self.sums = sums
        self.codec = codec
    }

    /// Writes `chunk`, the resource's bytes at `offset`, none of them present yet. Each block's new bytes
    /// join `present` (and its checksum `edges` or the sums file) as soon as they are written, so a
    /// failure half-way leaves both true. Returns the present ranges found damaged on the way, already
    /// removed from `present` and `edges`.
    func write(
        _ chunk: Data, at offset: Int64, present: inout ByteRangeSet, edges: inout EdgeSums, trusted: inout Set<Int64>,
        length: Int64, salt: Data
    ) throws -> [Range<Int64>] {
        let range = offset..<(offset + Int64(chunk.count))
        guard !range.isEmpty else { return [] }
        var damaged: [Range<Int64>] = []
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block, length: length)
            let added = range.clamped(to: area)
            guard !added.isEmpty else { continue }
            var segments: [(range: Range<Int64>, bytes: Data)] = []
            let existing = present.intersection(area)
            if !existing.isEmpty {
                if let plain = try plainBytes(
                    block, segments: existing, area: area, edges: edges, salt: salt, verify: !trusted.contains(block)) {
                    var cursor = plain.startIndex
                    for part in existing {
                        let count = Int(part.upperBound - part.lowerBound)
                        segments.append((part, plain[cursor..<(cursor + count)]))
                        cursor += count
                    }
                } else {
                    damaged += existing
                    for part in existing { present.remove(part) }
                    edges[block] = nil
                    trusted.remove(block)
                }
            }
            let start = chunk.startIndex + Int(added.lowerBound - offset)
            let bytes = chunk[start..<(start + Int(added.upperBound - added.lowerBound))]
            segments.append((added, bytes))
            segments.sort { $0.range.lowerBound < $1.range.lowerBound }
            var plain = Data(capacity: segments.reduce(0) { $0 + $1.bytes.count })
            for segment in segments { plain.append(segment.bytes) }

            let within = Int(added.lowerBound - area.lowerBound)
            try data.write(try codec.transform(Data(bytes), block: block, offset: within, salt: salt), at: added.lowerBound)
            let sum = codec.checksum(plain, block: block, salt: salt)
            if Int64(plain.count) == area.upperBound - area.lowerBound {
                try sums.write(sum, at: block * Int64(BlockLayout.checksumSize))
                edges[block] = nil
            } else {
                edges[block] = sum
            }
            present.insert(added)
            // Its bytes were verified or just written by this process: later reads need not check them again.
            trusted.insert(block)
        }
        return damaged
    }

    /// The plain bytes of `range`, all of them in `present`, each block verified; throws `BlockDamage`
    /// naming the present ranges of the first block that fails.
    func read(
        _ range: Range<Int64>, present: ByteRangeSet, edges: EdgeSums, trusted: inout Set<Int64>, length: Int64, salt: Data
    ) throws -> Data {
        var result = Data(capacity: Int(range.upperBound - range.lowerBound))
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block, length: length)
            let wanted = range.clamped(to: area)
            if trusted.contains(block) {
                // Checked once in this process: read just the wanted bytes.
                guard let stored = try data.read(wanted) else { throw BlockDamage(ranges: present.intersection(area)) }
                result.append(try codec.transform(stored, block: block, offset: Int(wanted.lowerBound - area.lowerBound), salt: salt))
                continue
            }
            let segments = present.intersection(area)
            guard let plain = try plainBytes(block, segments: segments, area: area, edges: edges, salt: salt, verify: true) else {
                throw BlockDamage(ranges: segments)
            }
            trusted.insert(block)
            // Map the wanted part of the block into the concatenated present segments.
            var cursor = plain.startIndex
            for part in segments {
                let count = Int(part.upperBound - part.lowerBound)
                let overlap = part.clamped(to: wanted)
                if !overlap.isEmpty {
                    let from = cursor + Int(overlap.lowerBound - part.lowerBound)
                    result.append(plain[from..<(from + Int(overlap.upperBound - overlap.lowerBound))])
                }
                cursor += count
            }
        }
        guard result.count == Int(range.upperBound - range.lowerBound) else {
            throw BlockDamage(ranges: [range])
        }
        return result
    }

    /// Forgets the blocks `range` covers: their checksums are cleared and their disk space given back.
    func discard(_ range: Range<Int64>) throws {
        guard !range.isEmpty else { return }
        for block in BlockLayout.blocks(in: range) {
            try sums.write(Data(count: BlockLayout.checksumSize), at: block * Int64(BlockLayout.checksumSize))
        }
        data.punchHole(range)
    }

    /// Makes written bytes and checksums durable before the index claims them.
    func synchronize() {
        data.synchronize()
        sums.synchronize()
    }

    /// Empties the entry, for a new version.
    func truncate() throws {
        try sums.truncate(to: 0)
        try data.truncate(to: 0)
    }

    /// Takes or releases the lock every process holds while it reads, merges and replaces this entry's
    /// index record.
    func lockRecord() { sums.lock(exclusive: true) }
    func unlockRecord() { sums.unlock() }

    func close() {
        data.close()
        sums.close()
    }

    /// The plain bytes of a block's present `segments`; when `verify`, only if they match their checksum
    /// (the sums file's for a complete block, `edges`' for a partial one). `nil` if they do not, or if the
    /// file ends before them.
    private func plainBytes(
        _ block: Int64, segments: [Range<Int64>], area: Range<Int64>, edges: EdgeSums, salt: Data, verify: Bool
    ) throws -> Data? {
        guard !segments.isEmpty else { return Data() }
        var plain = Data()
        for part in segments {
            guard let stored = try data.read(part) else { return nil }
            plain.append(try codec.transform(stored, block: block, offset: Int(part.lowerBound - area.lowerBound), salt: salt))
        }
        guard verify else { return plain }
        let expected: Data?
        if segments == [area] {
            let offset = block * Int64(BlockLayout.checksumSize)
            expected = try sums.read(offset..<(offset + Int64(BlockLayout.checksumSize)))
        } else {
            expected = edges[block]
        }
        guard let expected, expected == codec.checksum(plain, block: block, salt: salt) else { return nil }
        return plain
    }
}

/// The checksums of an entry's partial blocks, by block number; kept in the index record with the claims.
typealias EdgeSums = [Int64: Data]

/// Stored bytes that failed their block's checksum (or are missing); the ranges are no longer trusted.
struct BlockDamage: Error {
    let ranges: [Range<Int64>]
}
