import Foundation

/// Requests that only reads ahead of playback wait for give the link to playback.
extension FetchRunner {
    /// The longest a request pauses for playback in one go; then it takes its share of the link again.
    static let maximumPause: Double = 60

    /// While playback needs the link (`PlaybackGate`) and only reads ahead of playback wait for
    /// request `id`, stops taking its body: the transport stops reading the socket (AsyncHTTPClient; over
    /// URLSession the body keeps arriving into memory), so TCP hands the link to playback, and nothing
    /// received is lost, as it would be if the request were cancelled and sent again. Not a stall.
    func pauseForPlayback(fetch id: Int, lastByte: LockedBox<Double>) async {
        let gate = core.environment.gate
        let started = LinkMonitor.now
        while gate.isPlaybackActive, core.inner.withLock({ $0.state.mayPause(fetch: id) }),
            LinkMonitor.now - started < Self.maximumPause, !Task.isCancelled
        {
            lastByte.withLock { $0 = LinkMonitor.now }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
