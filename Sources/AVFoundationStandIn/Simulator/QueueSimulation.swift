#if os(Linux)
import Foundation

/// Plays several assets one after another on an `AVQueuePlayer`, the way AVPlayer does: while an item
/// plays, the next one is pre-buffered with small bounded requests; then the player advances with
/// `advanceToNextItem()`, which cancels nothing.
///
/// Main-actor isolated, like the player and items it drives.
@MainActor
public final class QueueSimulation {
    /// One asset of the queue and what playing it means.
    public struct Item: Sendable {
        /// The asset; its resource loader's delegate must be set before `run`.
        public var asset: AVURLAsset
        /// The true bytes of the resource.
        public var expectedBytes: @Sendable (Range<Int64>) -> Data
        /// The true length of the resource.
        public var resourceLength: Int64
        /// The UTI the delegate must report, if checked.
        public var expectedContentType: String?
        /// The requests made while the item is current; `linearPlay` by default.
        public var script: PlayerScript

        /// Creates a queue item.
        public init(
            asset: AVURLAsset, expectedBytes: @escaping @Sendable (Range<Int64>) -> Data, resourceLength: Int64,
            expectedContentType: String? = nil, script: PlayerScript? = nil
        ) {
            self.asset = asset
            self.expectedBytes = expectedBytes
            self.resourceLength = resourceLength
            self.expectedContentType = expectedContentType
            self.script = script ?? .linearPlay(length: resourceLength)
        }
    }

    /// The items, in play order.
    public let items: [Item]
    /// The queue player holding one `AVPlayerItem` per item; observe its `itemsDidChangeNotification`.
    public let player: AVQueuePlayer
    private let playerItems: [AVPlayerItem]

    /// Creates a queue of `items`.
    public init(items: [Item]) {
        self.items = items
        playerItems = items.map { AVPlayerItem(asset: $0.asset) }
        player = AVQueuePlayer(items: playerItems)
    }

    /// Plays every item in turn and returns one report per item (its pre-buffering plus its playback).
    public func run(timeout: TimeInterval = 60) async -> [SimulationReport] {
        var reports = Array(repeating: SimulationReport(), count: items.count)
        for index in items.indices {
            if player.currentItem !== playerItems[index] {
                reports[index].failures.append(
                    "item \(index) is not the current item of the queue player when its turn comes")
            }
            let current = simulator(index)
            let next = index + 1 < items.count ? simulator(index + 1) : nil
            let nextScript =
                index + 1 < items.count ? PlayerScript.prebuffer(length: items[index + 1].resourceLength) : nil
            let script = items[index].script
            async let playing = current.run(script, timeout: timeout)
            async let prebuffering: SimulationReport? = {
                guard let next, let nextScript else { return nil }
                return await next.run(nextScript, timeout: timeout)
            }()
            let (played, prebuffered) = await (playing, prebuffering)
            reports[index].merge(played)
            if let prebuffered { reports[index + 1].merge(prebuffered) }
            // As in AVFoundation: the item announces its end, and the queue moves on without cancelling
            // any of its loading requests.
            NotificationCenter.default.post(name: AVPlayerItem.didPlayToEndTimeNotification, object: playerItems[index])
            player.advanceToNextItem()
            reports[index].merge(advanceCheck(index))
        }
        return reports
    }

    private func simulator(_ index: Int) -> PlayerSimulator {
        PlayerSimulator(
            asset: items[index].asset, expectedBytes: items[index].expectedBytes,
            resourceLength: items[index].resourceLength, expectedContentType: items[index].expectedContentType)
    }

    /// After advancing, the item must have left the queue and the next one be current.
    private func advanceCheck(_ index: Int) -> SimulationReport {
        let remaining = player.items()
        let next = index + 1 < playerItems.count ? playerItems[index + 1] : nil
        if remaining.contains(where: { $0 === playerItems[index] }) || player.currentItem !== next {
            return SimulationReport(failures: [
                "advanceToNextItem() after item \(index) left the queue in the wrong state"
            ])
        }
        return SimulationReport(checksPassed: 1)
    }
}
#endif
