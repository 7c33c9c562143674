import Foundation

/// Measures, per origin host, the round trip and throughput of the links the engine's requests cross, so
/// that requests are sized from what the network shows rather than from constants.
///
/// Round trips are the shortest recent waits from request to response head (new connections, which cost a
/// handshake more, and busy servers only ever lengthen a wait). Throughput is the fastest recent rate at
/// which bodies arrived while at least one was arriving: concurrent responses share the link, so they are
/// counted together. Every call is short and takes only this monitor's lock; no call reaches out of it.
final class LinkMonitor: Sendable {
    /// Samples kept per host; old ones age out, so an estimate follows a link that changed.
    static let samplesKept = 12
    /// A rate sample needs at least this much body time and this many bytes, or timer noise dominates.
    static let minimumSampleTime: TimeInterval = 0.02
    static let minimumSampleBytes: Int64 = 64 * 1024

    private struct Host {
        var roundTrips: [TimeInterval] = []
        var rates: [Double] = []
        var receiving = 0
        var lastEvent: TimeInterval = 0
        var sampleBytes: Int64 = 0
        var sampleTime: TimeInterval = 0

        mutating func settle(_ now: TimeInterval) {
            if receiving > 0 { sampleTime += max(0, now - lastEvent) }
            lastEvent = now
        }

        mutating func closeSample() {
            guard sampleTime >= LinkMonitor.minimumSampleTime, sampleBytes >= LinkMonitor.minimumSampleBytes else { return }
            rates.append(Double(sampleBytes) / sampleTime)
            if rates.count > LinkMonitor.samplesKept { rates.removeFirst() }
            sampleBytes = 0
            sampleTime = 0
        }
    }

    private let hosts = LockedBox<[String: Host]>([:])

    /// The current estimate for `url`'s host.
    func estimate(for url: URL) -> LinkEstimate {
        let key = Self.key(url)
        return hosts.withLock { hosts in
            guard let host = hosts[key] else { return LinkEstimate() }
            return LinkEstimate(roundTrip: host.roundTrips.min(), bytesPerSecond: host.rates.max())
        }
    }

    /// A request to `url` got its response head `seconds` after it was sent.
    func responded(_ url: URL, after seconds: TimeInterval) {
        update(url) { host in
            host.roundTrips.append(max(0, seconds))
            if host.roundTrips.count > Self.samplesKept { host.roundTrips.removeFirst() }
        }
    }

    /// A response body from `url`'s host starts arriving.
    func bodyStarted(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            host.receiving += 1
        }
    }

    /// `count` body bytes arrived from `url`'s host.
    func received(_ count: Int, from url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            host.sampleBytes += Int64(count)
            if host.sampleTime >= Self.minimumSampleTime { host.closeSample() }
        }
    }

    /// A response body from `url`'s host ended (complete, cancelled or failed).
    func bodyEnded(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            host.receiving = max(0, host.receiving - 1)
            if host.receiving == 0 { host.closeSample() }
        }
    }

    /// Changes the record of `url`'s host (a new one if there is none yet) under the lock.
    private func update(_ url: URL, _ change: (inout Host) -> Void) {
        let key = Self.key(url)
        hosts.withLock { hosts in change(&hosts[key, default: Host()]) }
    }

    /// Monotonic seconds (the wall clock can jump).
    static var now: TimeInterval { ProcessInfo.processInfo.systemUptime }

    private static func key(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
