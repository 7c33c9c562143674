import Foundation

/// Drives an asset's resource loader the way AVPlayer does and checks everything a real player would
/// trip on (see `SimulationReport`).
///
/// `@unchecked Sendable` because its stored properties never change and the asset's loader guards its
/// own state; that lets a caller run several simulations concurrently (as `QueueSimulation` does).
public final class PlayerSimulator: @unchecked Sendable {
    private let asset: AVURLAsset
    private let expectedBytes: @Sendable (Range<Int64>) -> Data
    private let resourceLength: Int64
    private let expectedContentType: String?

    /// Creates a simulator for `asset`, whose resource has `resourceLength` bytes equal to
    /// `expectedBytes`; when `expectedContentType` (a UTI) is given, the delegate must report exactly it.
    public init(asset: AVURLAsset, expectedBytes: @escaping @Sendable (Range<Int64>) -> Data, resourceLength: Int64,
                expectedContentType: String? = nil) {
        self.asset = asset
        self.expectedBytes = expectedBytes
        self.resourceLength = resourceLength
        self.expectedContentType = expectedContentType
    }

    /// Replays `script`: each request is issued once the earlier ones outside its `openWith` have ended,
    /// read up to its cancel point and cancelled, or left for the delegate to finish. Gives up after
    /// `timeout` seconds, reporting whatever is still open.
    public func run(_ script: PlayerScript, timeout: TimeInterval = 60) async -> SimulationReport {
        let loader = asset.resourceLoader
        let run = SimulationRun(script: script, loader: loader, expectedBytes: expectedBytes,
                                resourceLength: resourceLength, expectedContentType: expectedContentType)
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
        // Whatever is still open would otherwise keep the delegate busy after the simulation ended.
        for request in run.openRequests { loader.cancel(request) }
        return report
    }

    /// Creates request `index` and hands it to the delegate on the delegate queue.
    private func issue(_ index: Int, of run: SimulationRun, on queue: DispatchQueue) {
        let loader = asset.resourceLoader
        guard let delegate = loader.delegate else {
            run.fail("\(run.plans[index].name): the delegate is gone; the loader holds it weakly, so the app must retain it")
            run.issued(index, nil)
            return
        }
        let scripted = run.plans[index].scripted
        let request = AVAssetResourceLoadingRequest(
            index: index, url: asset.url, info: scripted.info, data: scripted.data,
            offset: scripted.offset, length: scripted.length, resourceLength: resourceLength, loader: loader, observer: run)
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
