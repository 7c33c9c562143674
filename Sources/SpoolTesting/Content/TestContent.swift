import Foundation

/// The bytes a `TestOrigin` serves at one path.
public enum TestContent: Sendable {
    /// Bytes held in memory.
    case data(Data)
    /// A file on disk, read with `pread` chunk by chunk so large files never sit in memory.
    case file(URL)
    /// Deterministic pseudo-random bytes computed from `(seed, offset)`, so any range of a huge
    /// body can be produced (and checked by tests) without storing it.
    case generated(length: Int64, seed: UInt64)

    /// The bytes of `.generated(length:seed:)` content in `range`.
    ///
    /// Position-addressable: the bytes for a sub-range equal the same slice of any larger range,
    /// so a test can verify a download piecewise without holding the whole body.
    public static func generatedBytes(seed: UInt64, range: Range<Int64>) -> Data {
        GeneratedBytes(seed: seed).bytes(in: range)
    }

    /// The body length; for a file it is read from disk now (0 if the file cannot be read).
    var currentLength: Int64 {
        switch self {
        case .data(let data):
            return Int64(data.count)
        case .file(let url):
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        case .generated(let length, _):
            return max(0, length)
        }
    }
}
