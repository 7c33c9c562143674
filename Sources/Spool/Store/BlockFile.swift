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
    ///
    /// `hashers` holds the running checksums of partial blocks this file wrote last: a chunk that extends
    /// such a block is hashed alone instead of with the bytes before it.
    func write(
        _ chunk: Data, at offset: Int64, present: inout ByteRangeSet, edges: inout EdgeSums, trusted: inout Set<Int64>,
        hashers: inout [Int64: BlockHasher], length: Int64, salt: Data
    ) throws -> [Range<Int64>] {
        let range = offset..<(offset + Int64(chunk.count))
        guard !range.isEmpty else { return [] }
        var damaged: [Range<Int64>] = []
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block, length: length)
            let added = range.clamped(to: area)
            guard !added.isEmpty else { continue }
            let start = chunk.startIndex + Int(added.lowerBound - offset)
            let bytes = chunk[start..<(start + Int(added.upperBound - added.lowerBound))]
            let existing = present.intersection(area)

            var hasher: BlockHasher
            if let running = hashers[block], Self.canExtend(running, existing: existing, with: added) {
                hasher = running
                hasher.update(bytes)
            } else {
                hasher = codec.hasher(block: block, salt: salt)
                if !existing.isEmpty {
                    if let plain = try plainBytes(
                        block, segments: existing, area: area, edges: edges, salt: salt,
                        verify: !trusted.contains(block))
                    {
                        var cursor = plain.startIndex
                        var placed = false
                        for part in existing {
                            if !placed, added.lowerBound < part.lowerBound {
                                hasher.update(bytes)
                                placed = true
                            }
                            let count = Int(part.upperBound - part.lowerBound)
                            hasher.update(plain[cursor..<(cursor + count)])
                            cursor += count
                        }
                        if !placed { hasher.update(bytes) }
                    } else {
                        damaged += existing
                        for part in existing { present.remove(part) }
                        edges[block] = nil
                        trusted.remove(block)
                        hasher.update(bytes)
                    }
                } else {
                    hasher.update(bytes)
                }
            }
            hashers[block] = nil

            let within = Int(added.lowerBound - area.lowerBound)
            try data.write(try codec.transform(bytes, block: block, offset: within, salt: salt), at: added.lowerBound)
            let sum = hasher.checksum()
            if hasher.count == area.upperBound - area.lowerBound {
                try sums.write(sum, at: block * Int64(BlockLayout.checksumSize))
                edges[block] = nil
            } else {
                edges[block] = sum
                hashers[block] = hasher
            }
            present.insert(added)
            // Its bytes were verified or just written by this process: later reads need not check them again.
            trusted.insert(block)
        }
        return damaged
    }

    /// Whether `running`, a block's checksum so far, covers exactly the block's `existing` bytes and `added`
    /// comes after all of them, so hashing `added` onto it gives the block's new checksum.
    private static func canExtend(_ running: BlockHasher, existing: [Range<Int64>], with added: Range<Int64>) -> Bool {
        guard let last = existing.last, last.upperBound <= added.lowerBound else { return false }
        return running.count == existing.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) }
    }

    /// The plain bytes of `range`, all of them in `present`, each block verified; throws `BlockDamage`
    /// naming the present ranges of the first block that fails.
    func read(
        _ range: Range<Int64>, present: ByteRangeSet, edges: EdgeSums, trusted: inout Set<Int64>, length: Int64,
        salt: Data
    ) throws -> Data {
        // One buffer for the whole read: trusted blocks are read straight into it.
        var result = Data(count: Int(range.upperBound - range.lowerBound))
        var filled = 0
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block, length: length)
            let wanted = range.clamped(to: area)
            let count = Int(wanted.upperBound - wanted.lowerBound)
            let slot = filled..<(filled + count)
            filled += count
            if trusted.contains(block) {
                // Checked once in this process: read just the wanted bytes.
                let complete = try result.withUnsafeMutableBytes { buffer in
                    try data.read(wanted, into: UnsafeMutableRawBufferPointer(rebasing: buffer[slot]))
                }
                guard complete else { throw BlockDamage(ranges: present.intersection(area)) }
                if !codec.isIdentity {
                    let plain = try codec.transform(
                        result.subdata(in: slot), block: block, offset: Int(wanted.lowerBound - area.lowerBound),
                        salt: salt)
                    result.replaceSubrange(slot, with: plain)
                }
                continue
            }
            let segments = present.intersection(area)
            guard
                let plain = try plainBytes(
                    block, segments: segments, area: area, edges: edges, salt: salt, verify: true)
            else {
                throw BlockDamage(ranges: segments)
            }
            trusted.insert(block)
            // Map the wanted part of the block into the concatenated present segments.
            var cursor = plain.startIndex
            var copied = 0
            for part in segments {
                let partCount = Int(part.upperBound - part.lowerBound)
                let overlap = part.clamped(to: wanted)
                if !overlap.isEmpty {
                    let from = cursor + Int(overlap.lowerBound - part.lowerBound)
                    let overlapCount = Int(overlap.upperBound - overlap.lowerBound)
                    let to = slot.lowerBound + Int(overlap.lowerBound - wanted.lowerBound)
                    result.replaceSubrange(to..<(to + overlapCount), with: plain[from..<(from + overlapCount)])
                    copied += overlapCount
                }
                cursor += partCount
            }
            guard copied == count else { throw BlockDamage(ranges: [range]) }
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
            plain.append(
                try codec.transform(stored, block: block, offset: Int(part.lowerBound - area.lowerBound), salt: salt))
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
