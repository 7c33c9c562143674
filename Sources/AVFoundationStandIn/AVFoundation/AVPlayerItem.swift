import Foundation

/// Stand-in for AVFoundation's `AVPlayerItem`: an asset placed in a player.
open class AVPlayerItem: NSObject {
    /// Posted (object: the item) when the item has played to its end, as AVFoundation does; the simulator
    /// posts it when an item finishes in a queue.
    public static let didPlayToEndTimeNotification = Notification.Name("AVPlayerItemDidPlayToEndTimeNotification")

    /// The asset this item plays.
    public let asset: AVAsset

    /// Creates an item for `asset`.
    public init(asset: AVAsset) {
        self.asset = asset
        super.init()
    }

    /// Creates an item for a plain `AVURLAsset` of `URL`.
    public convenience init(url URL: URL) {
        self.init(asset: AVURLAsset(url: URL))
    }
}
