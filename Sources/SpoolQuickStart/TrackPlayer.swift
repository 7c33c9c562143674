// The README's AVPlayer quick start, line for line between the markers (DocSamplesTests compares them),
// so that what a newcomer copies is what CI compiles for iOS 15 and macOS 12 (`../shared/apple/check`).
// AVFoundation exists on Apple platforms only: on Linux this target is empty.
#if canImport(AVFoundation)
// sample begins
import AVFoundation
import Spool
import SpoolAVFoundation

/// Plays tracks through one cache: what the user hears is kept on disk, and plays again with no traffic.
@MainActor
final class TrackPlayer {
    let player = AVPlayer()
    private let cache: SpoolCache

    init() throws {
        // Library/Caches/Spool, unlimited; pass `limits: CacheLimits(maxBytes: 2 << 30)` to bound it.
        cache = try SpoolCache(configuration: SpoolConfiguration())
    }

    func play(_ url: URL) {
        let asset = SpoolAsset(url: url, cache: cache)
        player.replaceCurrentItem(with: AVPlayerItem(asset: asset))
        player.play()
    }
}
// sample ends
#endif
