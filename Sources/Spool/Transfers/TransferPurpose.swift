/// Why bytes are fetched while no player waits for them, in the order the transfer scheduler serves them:
/// a job of an earlier purpose starts first, and takes the place of a running job of a later one when the
/// limits leave no room. Playback reads come before all of them: they never wait for the scheduler.
package enum TransferPurpose: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// The next segments of the stream a player plays (the proxy's HLS read-ahead): needed in seconds.
    case readAhead
    /// Bytes the app asked for now (`SpoolCache.prefetch`, `SpoolAsset.prefetch`): a player will read them soon.
    case prefetch
    /// The next items of a feed (`SpoolPreloader`): a guess at what plays next.
    case preload
    /// Downloads and pins for offline play (`DownloadQueue`, `SpoolCache.pin`, `HLSPinning`): wanted, but later.
    case download

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "read-ahead", "prefetch", "preload", "download".
    package var description: String {
        switch self {
        case .readAhead: "read-ahead"
        case .prefetch: "prefetch"
        case .preload: "preload"
        case .download: "download"
        }
    }
}
