#if os(Linux)
import AVFoundationStandIn
import Foundation

/// An asset wired to a `MemoryDelegate`, ready to simulate. It owns the delegate because the loader
/// holds it only weakly.
final class Playback: @unchecked Sendable {
    let asset: AVURLAsset
    let delegate: MemoryDelegate
    let simulator: PlayerSimulator

    init(
        length: Int64, fault: MemoryDelegate.Fault = .none, name: String = "movie.mp4", system: StandInSystem = .iOS18
    ) {
        asset = AVURLAsset(url: URL(string: "spool-test://example.com/\(name)")!)
        delegate = MemoryDelegate(length: length, fault: fault)
        asset.resourceLoader.setDelegate(delegate, queue: delegate.queue)
        simulator = PlayerSimulator(
            asset: asset, expectedBytes: TestResource.bytes, resourceLength: length,
            expectedContentType: "public.mpeg-4", system: system)
    }

    func run(_ script: PlayerScript, timeout: TimeInterval = 10) async -> SimulationReport {
        await simulator.run(script, timeout: timeout)
    }
}
#endif
