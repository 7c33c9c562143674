import Foundation

/// How the engine sizes and retries its origin requests.
///
/// A read asks for bytes in bounded pieces whose size follows what the reader has consumed: 16 KiB until it
/// has consumed 1 MiB, then 6 % of what it consumed, at most 8 MiB. An origin sends a requested piece
/// whether or not the reader stays, so what a read abandoned early (a player's "to the end, then cancel")
/// wastes is bounded by about two pieces, while a long read soon runs in large pieces. The next piece is
/// always requested before the current one ends, so the connection never idles between pieces.
public struct FetchPolicy: Sendable, Hashable {
    /// The size of a reader's first piece, and the smallest.
    public var initialPieceSize: Int64
    /// The largest piece.
    public var maximumPieceSize: Int64
    /// A reader's pieces are this share of the bytes it has consumed (within the two sizes above), once it
    /// has consumed `probation`.
    public var readAheadRatio: Double
    /// A reader's pieces stay at `initialPieceSize` until it has consumed this many bytes. A player abandons
    /// most reads it starts (each seek is one) after a few hundred KiB: with small pieces until then, such a
    /// read costs the origin about two small pieces beyond what it played (at 6 % it would be about 15 %),
    /// while a read that keeps going needs a few dozen more small requests before its pieces grow.
    public var probation: Int64
    /// A reader that needs bytes a running request will reach within this distance waits for them instead
    /// of opening another request.
    public var joinDistance: Int64
    /// How many times a failed request is tried again in a row without receiving a byte.
    public var retryLimit: Int
    /// The wait before the first retry, in seconds; it doubles with each further one. (Seconds rather than
    /// `Duration`, which iOS 15 lacks.)
    public var retryDelay: TimeInterval
    /// New bytes after which the index is brought up to date during a long request.
    public var indexInterval: Int64
    /// The largest chunk a reader returns at once from disk.
    public var readChunkSize: Int

    /// The piece size for a reader that has consumed `consumed` bytes.
    func pieceSize(afterConsuming consumed: Int64) -> Int64 {
        guard consumed >= probation else { return initialPieceSize }
        let proportional = Int64(Double(consumed) * readAheadRatio)
        return min(maximumPieceSize, max(initialPieceSize, proportional))
    }

    /// A policy; the defaults suit media over mobile and broadband networks.
    public init(
        initialPieceSize: Int64 = 16 * 1024,
        maximumPieceSize: Int64 = 8 * 1024 * 1024,
        readAheadRatio: Double = 0.06,
        probation: Int64 = 1024 * 1024,
        joinDistance: Int64 = 1024 * 1024,
        retryLimit: Int = 3,
        retryDelay: TimeInterval = 0.1,
        indexInterval: Int64 = 4 * 1024 * 1024,
        readChunkSize: Int = 256 * 1024
    ) {
        self.initialPieceSize = initialPieceSize
        self.maximumPieceSize = maximumPieceSize
        self.readAheadRatio = readAheadRatio
        self.probation = probation
        self.joinDistance = joinDistance
        self.retryLimit = retryLimit
        self.retryDelay = retryDelay
        self.indexInterval = indexInterval
        self.readChunkSize = readChunkSize
    }
}
