import Foundation

/// One entry's bytes and their block slots (`data/KEY` and `data/KEY.sums`): written, read and verified a
/// 64 KiB block at a time, so a damaged byte is found when it is read and costs one block, not the entry.
///
/// Callers pass the bytes present in the entry, as their index state says, and serialize the calls for
/// one entry; the file trusts nothing else.
final class BlockFile: Sendable {
    let data: EntryFile
    private let sums: EntryFile
    private let codec: any BlockCodec

    init(data: EntryFile, sums: EntryFile, codec: any BlockCodec) {
        self.data = data
        self.sums = sums
        self.codec = codec
    }

    /// Writes `chunk`, the resource's bytes at `offset`, none of them present yet, to a file holding
    /// `present`, adding each block's new bytes to `present` as soon as that block and its slot are
    /// written (so a failure half-way leaves `present` true). Returns the present ranges it found damaged
    /// on the way, already removed from `present`.
    func write(_ chunk: Data, at offset: Int64, present: inout ByteRangeSet, salt: Data) throws -> [Range<Int64>] {
        let range = offset..<(offset + Int64(chunk.count))
        guard !range.isEmpty else { return [] }
        var damaged: [Range<Int64>] = []
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block)
            let added = range.clamped(to: area)
            var segments: [(range: Range<Int64>, bytes: Data)] = []
            let existing = present.intersection(area)
            if !existing.isEmpty {
                if let plain = try open(block, segments: existing, salt: salt) {
                    var cursor = plain.startIndex
                    for part in existing {
                        let count = Int(part.upperBound - part.lowerBound)
                        segments.append((part, plain[cursor..<(cursor + count)]))
                        cursor += count
                    }
                } else {
                    damaged += existing
                    for part in existing { present.remove(part) }
                }
            }
            let start = chunk.startIndex + Int(added.lowerBound - offset)
            segments.append((added, chunk[start..<(start + Int(added.upperBound - added.lowerBound))]))
            segments.sort { $0.range.lowerBound < $1.range.lowerBound }
            var plain = Data(capacity: segments.reduce(0) { $0 + $1.bytes.count })
            for segment in segments { plain.append(segment.bytes) }
            let (stored, slot) = try codec.seal(plain, block: block, salt: salt)
            if codec.transformsBytes {
                var cursor = stored.startIndex
                for segment in segments {
                    let count = segment.bytes.count
                    try data.write(stored[cursor..<(cursor + count)], at: segment.range.lowerBound)
                    cursor += count
                }
            } else {
                try data.write(segments.first { $0.range == added }!.bytes, at: added.lowerBound)
            }
            try sums.write(slot, at: block * Int64(BlockLayout.slotSize))
            present.insert(added)
        }
        return damaged
    }

    /// The plain bytes of `range`, all of them in `present`, each block verified; throws `BlockDamage`
    /// naming the present ranges of the first block that fails.
    func read(_ range: Range<Int64>, present: ByteRangeSet, salt: Data) throws -> Data {
        var result = Data(capacity: Int(range.upperBound - range.lowerBound))
        for block in BlockLayout.blocks(in: range) {
            let area = BlockLayout.range(of: block)
            let segments = present.intersection(area)
            guard let plain = try open(block, segments: segments, salt: salt) else {
                throw BlockDamage(ranges: segments)
            }
            // Map the wanted part of the block into the concatenated present segments.
            let wanted = range.clamped(to: area)
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

    /// Forgets the blocks `range` covers: their slots are cleared and their disk space given back.
    func discard(_ range: Range<Int64>) throws {
        guard !range.isEmpty else { return }
        for block in BlockLayout.blocks(in: range) {
            try sums.write(Data(count: BlockLayout.slotSize), at: block * Int64(BlockLayout.slotSize))
        }
        data.punchHole(range)
    }

    /// Makes written bytes and slots durable before the index claims them.
    func synchronize() {
        data.synchronize()
        sums.synchronize()
    }

    /// Empties the entry, for a new version.
    func truncate() throws {
        try sums.truncate(to: 0)
        try data.truncate(to: 0)
    }

    /// Tries to become the one process that writes this entry (its bytes, slots and record); held until
    /// the file closes. Another process holding it means this one only reads what is already stored.
    func tryLockWriting() -> Bool {
        sums.lock(exclusive: true, wait: false)
    }

    func close() {
        data.close()
        sums.close()
    }

    /// The plain bytes of a block's present `segments`, or `nil` if they fail their slot (or the file
    /// ends before them).
    private func open(_ block: Int64, segments: [Range<Int64>], salt: Data) throws -> Data? {
        guard !segments.isEmpty else { return Data() }
        var stored = Data()
        for part in segments {
            guard let bytes = try data.read(part) else { return nil }
            stored.append(bytes)
        }
        let offset = block * Int64(BlockLayout.slotSize)
        guard let slot = try sums.read(offset..<(offset + Int64(BlockLayout.slotSize))) else { return nil }
        return codec.open(stored, slot: slot, block: block, salt: salt)
    }
}

/// Stored bytes that failed their block's checksum (or are missing); the ranges are no longer trusted.
struct BlockDamage: Error {
    let ranges: [Range<Int64>]
}
