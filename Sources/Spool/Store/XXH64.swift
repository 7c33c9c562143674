import Foundation

/// The 64-bit xxHash (XXH64), fed incrementally: the checksum of unencrypted blocks.
///
/// It detects damage, not tampering (an encrypted cache keeps its keyed HMAC), at several times the speed
/// of SHA-256: a warm read checks every byte it serves, so the check must cost far less than the copy.
/// A value: a copy can be finished while the original takes more bytes.
struct XXH64: Sendable {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5
    private static let stripe = 32

    private let seed: UInt64
    private var lanes: (UInt64, UInt64, UInt64, UInt64)
    /// The bytes of an incomplete stripe, waiting for the rest of it.
    private var pending: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var pendingCount = 0
    private var total: UInt64 = 0

    init(seed: UInt64 = 0) {
        self.seed = seed
        lanes = (seed &+ Self.prime1 &+ Self.prime2, seed &+ Self.prime2, seed, seed &- Self.prime1)
    }

    mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        total &+= UInt64(count)
        if pendingCount > 0 {
            let taken = min(count, Self.stripe - pendingCount)
            withUnsafeMutableBytes(of: &pending) { buffer in
                buffer.baseAddress!.advanced(by: pendingCount).copyMemory(from: base, byteCount: taken)
            }
            pendingCount += taken
            base += taken
            count -= taken
            guard pendingCount == Self.stripe else { return }
            let full = pending
            withUnsafeBytes(of: full) { consumeStripes($0.baseAddress!, count: 1) }
            pendingCount = 0
        }
        let stripes = count / Self.stripe
        if stripes > 0 {
            consumeStripes(base, count: stripes)
            base += stripes * Self.stripe
            count -= stripes * Self.stripe
        }
        if count > 0 {
            withUnsafeMutableBytes(of: &pending) { buffer in
                buffer.baseAddress!.copyMemory(from: base, byteCount: count)
            }
            pendingCount = count
        }
    }

    /// The hash of everything fed so far.
    func digest() -> UInt64 {
        var hash: UInt64
        if total >= UInt64(Self.stripe) {
            let (v1, v2, v3, v4) = lanes
            hash = Self.rotate(v1, 1) &+ Self.rotate(v2, 7) &+ Self.rotate(v3, 12) &+ Self.rotate(v4, 18)
            for lane in [v1, v2, v3, v4] { hash = Self.merge(hash, lane) }
        } else {
            hash = seed &+ Self.prime5
        }
        hash &+= total
        let tail = pending
        withUnsafeBytes(of: tail) { buffer in
            var offset = 0
            while offset + 8 <= pendingCount {
                hash ^= Self.round(0, buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                hash = Self.rotate(hash, 27) &* Self.prime1 &+ Self.prime4
                offset += 8
            }
            if offset + 4 <= pendingCount {
                let word = UInt64(buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
                hash ^= word &* Self.prime1
                hash = Self.rotate(hash, 23) &* Self.prime2 &+ Self.prime3
                offset += 4
            }
            while offset < pendingCount {
                hash ^= UInt64(buffer[offset]) &* Self.prime5
                hash = Self.rotate(hash, 11) &* Self.prime1
                offset += 1
            }
        }
        hash ^= hash >> 33
        hash &*= Self.prime2
        hash ^= hash >> 29
        hash &*= Self.prime3
        hash ^= hash >> 32
        return hash
    }

    private mutating func consumeStripes(_ base: UnsafeRawPointer, count: Int) {
        var (v1, v2, v3, v4) = lanes
        var pointer = base
        for _ in 0..<count {
            v1 = Self.round(v1, pointer.loadUnaligned(as: UInt64.self).littleEndian)
            v2 = Self.round(v2, pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian)
            v3 = Self.round(v3, pointer.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian)
            v4 = Self.round(v4, pointer.loadUnaligned(fromByteOffset: 24, as: UInt64.self).littleEndian)
            pointer += Self.stripe
        }
        lanes = (v1, v2, v3, v4)
    }

    @inline(__always)
    private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        rotate(accumulator &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ hash: UInt64, _ lane: UInt64) -> UInt64 {
        (hash ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }
}
