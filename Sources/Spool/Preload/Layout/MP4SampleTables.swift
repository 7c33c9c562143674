import Foundation

/// Where the media of an MP4's first seconds lies, from the sample tables of its `moov` box: for each track,
/// the decode times (`stts`), the samples of each chunk (`stsc`), their sizes (`stsz`, `stz2`) and the chunks'
/// file offsets (`stco`, `co64`).
enum MP4SampleTables {
    /// The end of the last byte any track needs to play its first `seconds` (every sample decoded before that
    /// time, and at least the first one), as a file offset; `nil` when `moov` (its bytes, header included) has
    /// no track with sample tables, such as a fragmented MP4 whose samples are in `moof` boxes.
    static func mediaEnd(forSeconds seconds: Double, moov: Data) -> Int64? {
        let traks = MP4Boxes.children(
            of: moov, in: MP4Boxes.children(of: moov, in: 0..<moov.count).first?.contents ?? 0..<0
        )
        .filter { $0.type == "trak" }
        var end: Int64?
        for trak in traks {
            guard let trackEnd = trackMediaEnd(seconds: seconds, moov: moov, trak: trak) else { continue }
            end = max(end ?? 0, trackEnd)
        }
        return end
    }

    private static func trackMediaEnd(seconds: Double, moov: Data, trak: MP4Boxes.Box) -> Int64? {
        guard let mdhd = MP4Boxes.descend(["mdia", "mdhd"], in: moov, from: trak.contents),
            let stbl = MP4Boxes.descend(["mdia", "minf", "stbl"], in: moov, from: trak.contents)
        else { return nil }
        let bytes = [UInt8](moov)
        let version = bytes[mdhd.contents.lowerBound]
        let timescaleOffset = mdhd.contents.lowerBound + (version == 1 ? 20 : 12)
        guard timescaleOffset + 4 <= mdhd.range.upperBound else { return nil }
        let timescale = Double(MP4Boxes.bigEndian32(bytes, timescaleOffset))
        guard timescale > 0,
            let stts = MP4Boxes.child("stts", of: moov, in: stbl.contents),
            let stsc = MP4Boxes.child("stsc", of: moov, in: stbl.contents),
            let sizes = sampleSizes(bytes, moov: moov, stbl: stbl),
            let offsets = chunkOffsets(bytes, moov: moov, stbl: stbl)
        else { return nil }
        let wanted = max(1, min(samplesBefore(seconds * timescale, bytes, stts: stts), sizes.count))
        let chunkRuns = table(bytes, box: stsc, headerFields: 0, entryLength: 12).map {
            (firstChunk: Int(MP4Boxes.bigEndian32(bytes, $0)), samples: Int(MP4Boxes.bigEndian32(bytes, $0 + 4)))
        }
        guard !chunkRuns.isEmpty else { return nil }
        var sample = 0
        var end: Int64 = 0
        var run = 0
        for (chunkIndex, chunkOffset) in offsets.enumerated() where sample < wanted {
            let chunkNumber = chunkIndex + 1
            while run + 1 < chunkRuns.count, chunkRuns[run + 1].firstChunk <= chunkNumber { run += 1 }
            var offset = chunkOffset
            for _ in 0..<chunkRuns[run].samples where sample < wanted {
                offset += sizes[sample]
                end = max(end, offset)
                sample += 1
            }
        }
        return end > 0 ? end : nil
    }

    /// How many samples start before `time` (in the track's timescale).
    private static func samplesBefore(_ time: Double, _ bytes: [UInt8], stts: MP4Boxes.Box) -> Int {
        var count = 0
        var start = 0.0
        for entry in table(bytes, box: stts, headerFields: 0, entryLength: 8) {
            let samples = Int(MP4Boxes.bigEndian32(bytes, entry))
            let delta = Double(MP4Boxes.bigEndian32(bytes, entry + 4))
            guard delta > 0 else {
                count += samples
                continue
            }
            let fitting = Int(((time - start) / delta).rounded(.up))
            if fitting < samples { return count + max(0, fitting) }
            count += samples
            start += Double(samples) * delta
        }
        return count
    }

    private static func sampleSizes(_ bytes: [UInt8], moov: Data, stbl: MP4Boxes.Box) -> [Int64]? {
        if let stsz = MP4Boxes.child("stsz", of: moov, in: stbl.contents) {
            let fields = stsz.contents.lowerBound + 4
            guard fields + 8 <= stsz.range.upperBound else { return nil }
            let uniform = Int64(MP4Boxes.bigEndian32(bytes, fields))
            let count = Int(MP4Boxes.bigEndian32(bytes, fields + 4))
            if uniform != 0 {
                // Bounded by what a file can hold: one byte a sample at least.
                return count <= 1 << 26 ? Array(repeating: uniform, count: count) : nil
            }
            return table(bytes, box: stsz, headerFields: 1, entryLength: 4).map {
                Int64(MP4Boxes.bigEndian32(bytes, $0))
            }
        }
        guard let stz2 = MP4Boxes.child("stz2", of: moov, in: stbl.contents) else { return nil }
        let fields = stz2.contents.lowerBound + 4
        guard fields + 8 <= stz2.range.upperBound else { return nil }
        let fieldSize = Int(bytes[fields + 3])
        let count = Int(MP4Boxes.bigEndian32(bytes, fields + 4))
        let start = fields + 8
        guard [4, 8, 16].contains(fieldSize), start + (count * fieldSize + 7) / 8 <= stz2.range.upperBound else {
            return nil
        }
        return (0..<count).map { index in
            switch fieldSize {
            case 4:
                let byte = bytes[start + index / 2]
                return Int64(index % 2 == 0 ? byte >> 4 : byte & 0x0F)
            case 8: return Int64(bytes[start + index])
            default: return Int64(UInt16(bytes[start + 2 * index]) << 8 | UInt16(bytes[start + 2 * index + 1]))
            }
        }
    }

    private static func chunkOffsets(_ bytes: [UInt8], moov: Data, stbl: MP4Boxes.Box) -> [Int64]? {
        if let stco = MP4Boxes.child("stco", of: moov, in: stbl.contents) {
            return table(bytes, box: stco, headerFields: 0, entryLength: 4).map {
                Int64(MP4Boxes.bigEndian32(bytes, $0))
            }
        }
        guard let co64 = MP4Boxes.child("co64", of: moov, in: stbl.contents) else { return nil }
        return table(bytes, box: co64, headerFields: 0, entryLength: 8).map {
            Int64(clamping: MP4Boxes.bigEndian64(bytes, $0))
        }
    }

    /// The offsets of a full box's table entries: after the version and flags, `headerFields` 32-bit fields,
    /// then an entry count and the entries. Only the entries the box holds, whatever the count claims.
    private static func table(_ bytes: [UInt8], box: MP4Boxes.Box, headerFields: Int, entryLength: Int)
        -> StrideTo<Int>
    {
        let countOffset = box.contents.lowerBound + 4 + 4 * headerFields
        guard countOffset + 4 <= box.range.upperBound else { return stride(from: 0, to: 0, by: 1) }
        let claimed = Int(MP4Boxes.bigEndian32(bytes, countOffset))
        let first = countOffset + 4
        let fitting = (box.range.upperBound - first) / entryLength
        return stride(from: first, to: first + min(claimed, fitting) * entryLength, by: entryLength)
    }
}
