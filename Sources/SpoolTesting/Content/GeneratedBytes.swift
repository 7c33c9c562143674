import Foundation

/// The generator behind `TestContent.generated`: word `i` of the stream is splitmix64 of
/// (seed, i), so any offset is computable directly without producing what precedes it.
struct GeneratedBytes: Sendable {
    private let key: UInt64

    init(seed: UInt64) {
        // Mixing the seed first keeps nearby seeds (1, 2, 3...) from producing shifted streams.
        key = Self.mix(seed)
    }

    /// The finaliser of splitmix64: a cheap bijection with good avalanche.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The 8 bytes (little-endian) covering offsets `index*8 ..< index*8+8`.
    func word(at index: UInt64) -> UInt64 {
        Self.mix(key ^ (index &* 0xD6E8_FEB8_6659_FD93))
    }

    func bytes(in range: Range<Int64>) -> Data {
        let lower = max(0, range.lowerBound)
        let count = Int(max(0, range.upperBound - lower))
        var data = Data(count: count)
        guard count > 0 else { return data }
        data.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var position = lower
            var written = 0
            while written < count {
                let value = word(at: UInt64(position >> 3))
                let skip = Int(position & 7)
                if skip == 0 && count - written >= 8 {
                    // Fast path: whole aligned words (storeBytes tolerates unaligned destinations).
                    base.storeBytes(of: value.littleEndian, toByteOffset: written, as: UInt64.self)
                    written += 8
                    position += 8
                    continue
                }
                let take = min(8 - skip, count - written)
                for byte in 0..<take {
                    let shifted = value >> UInt64((skip + byte) * 8)
                    base.storeBytes(
                        of: UInt8(truncatingIfNeeded: shifted), toByteOffset: written + byte, as: UInt8.self)
                }
                written += take
                position += Int64(take)
            }
        }
        return data
    }
}
