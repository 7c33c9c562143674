// The Swift sample of the DocC article "Playing with AVPlayer" (SpoolAVFoundation.docc/PlayingWithAVPlayer.md),
// between markers: DocSamplesTests checks that the article shows it as written, and CI compiles it for iOS 15
// and macOS 12 (`../shared/apple/check`). AVFoundation exists on Apple platforms only: on Linux this is empty.
#if canImport(AVFoundation)
// sample begins
import AVFoundation
import Spool
import SpoolAVFoundation

/// Plays tracks one after another through the cache, the next one warmed up while the current one plays.
@MainActor
final class QueuePlayback {
    let player = AVQueuePlayer()
    private let cache: SpoolCache
    private let canceller: QueueLoadingCanceller

    init(cache: SpoolCache) {
        self.cache = cache
        // AVFoundation never cancels the loading requests of items that leave the queue: this does.
        canceller = QueueLoadingCanceller(player: player)
        // Apple's header advises this for players fed by a resource loader: play as soon as bytes arrive
        // instead of waiting to "minimize stalling"; the cache then decides how fast playback starts.
        player.automaticallyWaitsToMinimizeStalling = false
    }

    func enqueue(_ trackURL: URL, token: String) async throws {
        let asset = SpoolAsset(url: trackURL, cache: cache, headers: ["Authorization": "Bearer \(token)"])
        let item = AVPlayerItem(asset: asset)
        asset.reportPlayback(of: item)  // its startup and stalls join the cache's playback report
        player.insert(item, after: nil)
        try await asset.prefetch(length: 512 * 1024)  // gives way to what plays now
    }

    func skip() {
        canceller.advanceToNextItem()
    }
}
// sample ends
#endif
