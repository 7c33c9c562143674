#if os(Linux)
import Foundation

/// Drives an asset's resource loader the way AVPlayer does and checks everything a real player would
/// trip on (see `SimulationReport`).
///
/// `@unchecked Sendable` because its stored properties never change (the weak reference to the asset is
/// read atomically) and the asset's loader guards its own state; that lets a caller run several simulations
/// concurrently (as `QueueSimulation` does).
public final class PlayerSimulator: @unchecked Sendable {
    /// How the simulated player holds the asset.
    public enum AssetHold: Sendable {
        /// Like a player item: the asset lives at least as long as the simulation.
        case strong
        /// The app may drop the asset mid-play (as when it is released with its item): the simulation then
        /// expects the delegate to finish every open request with `NSURLErrorCancelled`.
        case weak
    }

    private let strongAsset: AVURLAsset?
    private weak var weakAsset: AVURLAsset?
    private let loader: AVAssetResourceLoader
    private let url: URL
    private let expectedBytes: @Sendable (Range<Int64>) -> Data
    private let resourceLength: Int64
    private let expectedContentType: String?
    private let allowedContentTypes: [String]?
    private let system: StandInSystem
    private let item: AVPlayerItem?
    private let playback: SimulatedPlayback?

    /// Creates a simulator for `asset`, whose resource has `resourceLength` bytes equal to
    /// `expectedBytes`; when `expectedContentType` (a UTI) is given, the delegate must report exactly it.
    /// `allowedContentTypes` is what content-information requests carry (AVFoundation fills it in some
    /// contexts; a delegate reporting a type outside it crashes the app). `system` is the release the player
    /// runs on: an older one lacks members the delegate must then leave alone. With `item` and `playback`, the
    /// player plays what it loads as `playback` says and reports it through `item` (its access log and
    /// `playbackStalledNotification`), as AVPlayer does.
    public init(
        asset: AVURLAsset, expectedBytes: @escaping @Sendable (Range<Int64>) -> Data, resourceLength: Int64,
        expectedContentType: String? = nil, allowedContentTypes: [String]? = nil, hold: AssetHold = .strong,
        system: StandInSystem = .iOS18, item: AVPlayerItem? = nil, playback: SimulatedPlayback? = nil
    ) {
        self.item = item
        self.playback = playback
        strongAsset = hold == .strong ? asset : nil
        weakAsset = asset
        loader = asset.resourceLoader
        url = asset.url
        self.expectedBytes = expectedBytes
        self.resourceLength = resourceLength
        self.expectedContentType = expectedContentType
        self.allowedContentTypes = allowedContentTypes
        self.system = system
    }

    /// Whether the app gave up on the asset: dropped it, or called `cancelLoading()`.
    private var assetAbandoned: Bool {
        weakAsset == nil || loader.wasAbandonedByApp
    }

    /// Replays `script`: each request is issued once the earlier ones outside its `openWith` have ended,
    /// read up to its cancel point and cancelled, or left for the delegate to finish. Gives up after
    /// `timeout` seconds, reporting whatever is still open.
    public func run(_ script: PlayerScript, timeout: TimeInterval = 60) async -> SimulationReport {
        let run = SimulationRun(
            script: script, loader: loader, expectedBytes: expectedBytes,
            resourceLength: resourceLength, expectedContentType: expectedContentType,
            abandoned: { [weak self] in self?.assetAbandoned ?? true }, item: item, playback: playback)
        guard let queue = loader.delegateQueue, loader.delegate != nil else {
            run.fail("the resource loader has no delegate and queue: AVPlayer would load the URL itself (and fail)")
            return run.close(timedOut: nil)
        }
        let deadline = monotonicSeconds() + timeout
        var timedOut = false
        for index in script.requests.indices {
            let mustHaveEnded = (0..<index).filter { !script.requests[index].openWith.contains($0) }
            guard await wait(until: deadline, for: { run.haveEnded(mustHaveEnded) }) else {
                timedOut = true
                break
            }
            issue(index, of: run, on: queue)
        }
        if !timedOut {
            timedOut = !(await wait(until: deadline, for: { run.issuedHaveEnded }))
        }
        // Let blocks already queued on the delegate queue run, so a respond or finish that comes right
        // after a request ended is still seen.
        for _ in 0..<2 {
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        }
        try? await Task.sleep(nanoseconds: 5_000_000)
        let report = run.close(timedOut: timedOut ? timeout : nil)
        withExtendedLifetime(strongAsset) {}
        // Whatever is still open would otherwise keep the delegate busy after the simulation ended.
        for request in run.openRequests { loader.cancel(request) }
        return report
    }

    /// Creates request `index` and hands it to the delegate on the delegate queue.
    private func issue(_ index: Int, of run: SimulationRun, on queue: DispatchQueue) {
        guard let delegate = loader.delegate else {
            run.fail(
                "\(run.plans[index].name): the delegate is gone; the loader holds it weakly, so the app must retain it")
            run.issued(index, nil)
            return
        }
        let scripted = run.plans[index].scripted
        let shape = AVAssetResourceLoadingRequest.Shape(
            info: scripted.info, data: scripted.data, offset: scripted.offset, length: scripted.length,
            knownLength: loader.learnedLength, allowedContentTypes: allowedContentTypes, system: system)
        let request = AVAssetResourceLoadingRequest(index: index, url: url, shape: shape, loader: loader, observer: run)
        loader.register(request)
        run.issued(index, request)
        let box = UncheckedBox(value: (delegate, loader, request))
        queue.async {
            let (delegate, loader, request) = box.value
            let accepted = delegate.resourceLoader(loader, shouldWaitForLoadingOfRequestedResource: request)
            run.answered(index, accepted: accepted)
        }
    }

    /// Polls `condition` every millisecond until it holds (true) or the deadline passes (false). Polling
    /// keeps the waiting independent of the delegate's threads; the timings come from the events.
    private func wait(until deadline: TimeInterval, for condition: () -> Bool) async -> Bool {
        while !condition() {
            if monotonicSeconds() >= deadline { return false }
            try? await Task.sleep(nanoseconds: 1_000_000)
        }
        return true
    }
}
#endif
