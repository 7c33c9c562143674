/// How much of a read its caller will consume, which decides how its origin requests are sized.
package enum ReadExtent: Sendable, Hashable {
    /// A player's read, often abandoned after a few hundred KiB (each seek starts a new one): small requests
    /// first, larger ones as it plays (see `FetchPolicy`). The default.
    case mayStopEarly
    /// Every byte will be consumed: an HLS segment, a key, a playlist, a download. What it lacks is asked for
    /// in one request, from the first missing byte to the read's end (the first request to a resource whose
    /// length is unknown asks for up to `FetchPolicy.wholeRequestLimit`).
    case whole
}
