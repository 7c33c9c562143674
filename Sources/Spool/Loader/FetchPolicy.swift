/// How the engine sizes and retries its origin requests.
///
/// A read asks for bytes in bounded pieces that start small and double while the reader keeps consuming,
/// so a read abandoned early (a player's "to the end, then cancel") costs little traffic, while a long
/// read soon runs in large pieces. The next piece is requested while the current one is still arriving,
/// so the connection never idles between pieces.
public struct FetchPolicy: Sendable, Hashable {
    /// The size of a reader's first piece.
    public var initialPieceSize: Int64
    /// The largest piece; a reader's pieces double up to it.
    public var maximumPieceSize: Int64
    /// A reader that needs bytes a running request will reach within this distance waits for them instead
    /// of opening another request.
    public var joinDistance: Int64
    /// How many times a failed request is tried again in a row without receiving a byte.
    public var retryLimit: Int
    /// The wait before the first retry; it doubles with each further one.
    public var retryDelay: Duration
    /// New bytes after which the index is brought up to date during a long request.
    public var indexInterval: Int64
    /// The largest chunk a reader returns at once from disk.
    public var readChunkSize: Int

    /// A policy; the defaults suit media over mobile and broadband networks.
    public init(
        initialPieceSize: Int64 = 256 * 1024,
        maximumPieceSize: Int64 = 8 * 1024 * 1024,
        joinDistance: Int64 = 1024 * 1024,
        retryLimit: Int = 3,
        retryDelay: Duration = .milliseconds(100),
        indexInterval: Int64 = 4 * 1024 * 1024,
        readChunkSize: Int = 256 * 1024
    ) {
        self.initialPieceSize = initialPieceSize
        self.maximumPieceSize = maximumPieceSize
        self.joinDistance = joinDistance
        self.retryLimit = retryLimit
        self.retryDelay = retryDelay
        self.indexInterval = indexInterval
        self.readChunkSize = readChunkSize
    }
}
