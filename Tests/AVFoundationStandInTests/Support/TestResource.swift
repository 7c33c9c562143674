#if os(Linux)
import Foundation

/// Deterministic resource bytes that can be produced at any offset of a very large (158 MB) resource
/// without holding it: a pseudo-random table whose length is a prime, so a response shifted by any
/// amount below it (in particular a 64 KiB boundary) compares unequal.
enum TestResource {
    static let period = 999_983

    static let table: [UInt8] = {
        var state: UInt64 = 0x5EED
        return (0..<period).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }()

    /// The bytes of `range`.
    @Sendable static func bytes(_ range: Range<Int64>) -> Data {
        var data = Data(capacity: range.count)
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = Int(offset % Int64(period))
            let count = min(period - start, Int(range.upperBound - offset))
            table.withUnsafeBufferPointer { data.append(UnsafeBufferPointer(rebasing: $0[start..<start + count])) }
            offset += Int64(count)
        }
        return data
    }
}
#endif
