import Foundation
import SpoolTesting

/// A player's requests over one file, AVPlayer's way: a 2-byte probe for the content information, a read
/// from the start "to the end" cancelled after a few hundred KB, then `seeks` more such reads from random
/// offsets, each cancelled in turn. Deterministic for a seed, so a replay asks for exactly the same bytes.
struct SeekSession: Sendable {
    /// One request: `bytes=offset-` (to the end), of which the player takes `played` bytes and hangs up.
    struct Read: Sendable {
        var offset: Int64
        var played: Int64
    }

    let reads: [Read]

    init(size: Int64, seeks: Int, played: ClosedRange<Int64>, seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var reads = [Read(offset: 0, played: Int64.random(in: played, using: &random))]
        for _ in 0..<seeks {
            let offset = Int64.random(in: 0..<max(1, size - played.upperBound), using: &random)
            reads.append(Read(offset: offset, played: Int64.random(in: played, using: &random)))
        }
        self.reads = reads
    }

    /// Plays the session against `url` with `reader`; returns the distinct bytes the player received.
    func play(_ reader: any RangeReading, url: URL) throws -> Int64 {
        let probe = try reader.get(url, range: "bytes=0-1", limit: nil)
        guard probe.status == 206, probe.bodyBytes == 2 else {
            throw CommandFailure(
                message: "player session: the probe got status \(probe.status), \(probe.bodyBytes) bytes")
        }
        var received: [Range<Int64>] = [0..<2]
        for read in reads {
            let transfer = try reader.get(url, range: "bytes=\(read.offset)-", limit: read.played)
            guard transfer.status == 206, transfer.bodyBytes == read.played else {
                throw CommandFailure(
                    message: "player session: bytes=\(read.offset)- got status \(transfer.status), "
                        + "\(transfer.bodyBytes) of \(read.played) bytes")
            }
            received.append(read.offset..<read.offset + transfer.bodyBytes)
        }
        return Self.unionLength(received)
    }

    /// The bytes covered by `ranges` together, overlaps counted once.
    static func unionLength(_ ranges: [Range<Int64>]) -> Int64 {
        var total: Int64 = 0
        var current: Range<Int64>?
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let open = current, range.lowerBound <= open.upperBound {
                current = open.lowerBound..<max(open.upperBound, range.upperBound)
            } else {
                total += Int64(current?.count ?? 0)
                current = range
            }
        }
        return total + Int64(current?.count ?? 0)
    }
}
