import Foundation

/// Measures, per origin host, the round trip and throughput of the links the engine's requests cross, so
/// that requests are sized from what the network shows rather than from constants.
///
/// Round trips are the shortest waits from request to response head over the last `roundTripWindow` seconds,
/// of requests sent while an idle connection was likely open. Until there is such a sample, the host's first
/// wait (certainly a new connection's) stands for the handshakes plus a round trip: TCP's, and TLS 1.3's over
/// HTTPS, so a third of it over HTTPS and half over HTTP; unless a later request that looked like a new
/// connection's came back much sooner, which shows the transport sent it on an open one (HTTP/2 streams, a
/// connection the monitor did not know was idle), and then that wait is the round trip. A new connection's
/// extra wait (`LinkEstimate.connectionSetup`) is the shortest new-connection wait less the round trip: about
/// two round trips over TLS 1.3, one over plain HTTP, none over HTTP/2. Queues on a busy link and
/// busy servers only ever lengthen a wait, so the shortest is the path's own; a window of seconds rather
/// than of samples keeps one seen before a long busy stretch, or the estimate would grow with the requests
/// in flight it sizes. Throughput is the median of recent rates at
/// which bodies arrived while at least one was arriving: concurrent responses share the link, so they are
/// counted together, and the median neither chases a burst nor a pause. Connections are counted from the
/// requests themselves: the most that ran at once are open, less those that ended without finishing their
/// body (a transport closes those), until the host has been idle longer than servers keep connections.
/// Every call is short and takes only this monitor's lock; no call reaches out of it.
final class LinkMonitor: Sendable {
    /// Samples kept per host; old ones age out, so an estimate follows a link that changed.
    static let samplesKept = 12
    /// A rate sample needs at least this much body time and this many bytes, or timer noise dominates.
    static let minimumSampleTime: TimeInterval = 0.04
    static let minimumSampleBytes: Int64 = 64 * 1024
    /// Before a host's first sample is complete, the one being gathered stands in for it once it has this
    /// much time and these many bytes: a read's next requests wait for the estimate, and on a fast link the
    /// first response ends a few tens of milliseconds after its head (a 512 KiB body at 40 Mbit/s takes
    /// 105 ms, and requests on new connections take two 40 ms round trips to deliver).
    static let provisionalSampleTime: TimeInterval = 0.01
    static let provisionalSampleBytes: Int64 = 32 * 1024
    /// How long a round-trip or delivery sample counts.
    static let roundTripWindow: TimeInterval = 10
    /// After this long without a request, a host's idle connections are taken as closed (servers commonly
    /// close idle connections after 5 to 75 seconds).
    static let idleConnectionLifetime: TimeInterval = 5

    /// The smallest of the values added over the last `roundTripWindow` seconds, read without a scan: the
    /// estimate is asked for at every step of every read. A value is dropped once a newer one is no larger,
    /// as it can never be the smallest again, so the values kept rise with their time and the first is the
    /// smallest.
    private struct RecentMinimum {
        private var kept: [(at: TimeInterval, value: TimeInterval)] = []

        var minimum: TimeInterval? { kept.first?.value }

        mutating func add(_ value: TimeInterval, at now: TimeInterval) {
            kept.removeAll { now - $0.at > LinkMonitor.roundTripWindow || $0.value >= value }
            kept.append((now, value))
        }
    }

    private struct Host {
        var roundTrips = RecentMinimum()
        /// The same for requests sent on a new connection.
        var handshakeRoundTrips = RecentMinimum()
        /// Single responses' delivery rates, negated: the smallest kept is the fastest delivery.
        var negatedDeliveries = RecentMinimum()
        /// The wait of the host's first request: a new connection's, whatever the transport.
        var firstWait: TimeInterval?
        /// What the latest response's transport said of its connection.
        var multiplexed = false
        /// What it said of a new stream's flow-control window there.
        var initialStreamWindow = OriginReadResponse.defaultStreamWindow
        var rates: [Double] = []
        var receiving = 0
        /// A body started (or resumed) while no other was arriving, and its first chunk has not come yet. That
        /// chunk is left out with the time before it: it may have come with its response head (over time no
        /// sample counted: counted, it would make the link look faster), or alone a while after a head that
        /// came by itself (counting that wait without its bytes made the link look slower, and an origin
        /// without `tcp_nopush` sends every head so).
        var awaitsFirstChunk = false
        var lastEvent: TimeInterval = 0
        var sampleBytes: Int64 = 0
        var sampleTime: TimeInterval = 0
        /// Requests sent and not ended.
        var requests = 0
        /// Connections believed open.
        var connections = 0
        var lastRequestEvent: TimeInterval = -.infinity
        /// When the host last answered anything: a response head or body bytes, on any connection.
        var lastAnswer: TimeInterval = -.infinity

        mutating func forgetIdleConnections(_ now: TimeInterval) {
            if now - lastRequestEvent > LinkMonitor.idleConnectionLifetime { connections = requests }
        }

        mutating func settle(_ now: TimeInterval) {
            if receiving > 0, !awaitsFirstChunk { sampleTime += max(0, now - lastEvent) }
            lastEvent = now
        }

        /// The median of the recent rates, or the sample being gathered while none is complete.
        var rate: Double? {
            guard rates.isEmpty else { return rates.sorted()[rates.count / 2] }
            guard sampleTime >= LinkMonitor.provisionalSampleTime, sampleBytes >= LinkMonitor.provisionalSampleBytes
            else { return nil }
            return Double(sampleBytes) / sampleTime
        }

        mutating func closeSample() {
            guard sampleTime >= LinkMonitor.minimumSampleTime, sampleBytes >= LinkMonitor.minimumSampleBytes else {
                return
            }
            rates.append(Double(sampleBytes) / sampleTime)
            if rates.count > LinkMonitor.samplesKept { rates.removeFirst() }
            sampleBytes = 0
            sampleTime = 0
        }
    }

    private let hosts = LockedBox<[String: Host]>([:])
    private let clock: any SpoolClock

    /// A monitor timing the links by `clock` (the cache's).
    init(clock: any SpoolClock = SystemClock()) {
        self.clock = clock
    }

    /// The current estimate for `url`'s host.
    func estimate(for url: URL) -> LinkEstimate {
        let key = Self.key(url)
        return hosts.withLock { hosts in
            guard var host = hosts[key] else { return LinkEstimate() }
            host.forgetIdleConnections(clock.uptime)
            let roundTrip = Self.roundTrip(of: host, secure: key.hasPrefix("https:"))
            return LinkEstimate(
                roundTrip: roundTrip,
                bytesPerSecond: host.rate,
                spareConnections: max(0, host.connections - host.requests),
                connectionSetup: roundTrip.map { trip in
                    max(0, (host.handshakeRoundTrips.minimum ?? host.firstWait ?? trip) - trip)
                },
                deliveryBytesPerSecond: host.negatedDeliveries.minimum.map { -$0 }, multiplexed: host.multiplexed,
                initialStreamWindow: host.initialStreamWindow)
        }
    }

    /// A new connection's handshakes before its first request goes out: TCP's, and TLS 1.3's over HTTPS.
    private static func setupRoundTrips(secure: Bool) -> Double { secure ? 2 : 1 }

    /// A later wait shorter than this share of the first cannot have paid the first one's handshakes.
    private static let multiplexedShare = 0.6

    private static func roundTrip(of host: Host, secure: Bool) -> TimeInterval? {
        if let idle = host.roundTrips.minimum { return idle }
        guard let first = host.firstWait else { return host.handshakeRoundTrips.minimum }
        if let shortest = host.handshakeRoundTrips.minimum, shortest < first * multiplexedShare { return shortest }
        return first / (1 + setupRoundTrips(secure: secure))
    }

    /// When `url`'s host last answered anything (a response head, body bytes) on any connection; `nil` if it
    /// never did. A request that hears nothing while its host answers others waits in a queue (the link's,
    /// the transport's), which is no stall.
    func lastAnswer(for url: URL) -> TimeInterval? {
        let key = Self.key(url)
        return hosts.withLock { $0[key]?.lastAnswer }.flatMap { $0.isFinite ? $0 : nil }
    }

    /// A request to `url`'s host is sent; returns whether it likely needs a new connection (no idle one).
    @discardableResult
    func requestSent(_ url: URL, at moment: TimeInterval? = nil) -> Bool {
        let now = moment ?? self.now
        return update(url) { host in
            host.forgetIdleConnections(now)
            let newConnection = host.requests >= host.connections
            host.requests += 1
            host.connections = max(host.connections, host.requests)
            host.lastRequestEvent = now
            return newConnection
        }
    }

    /// A request to `url`'s host ended; unless `reusable` (its body was read to the end), its connection
    /// is taken as closed.
    func requestEnded(_ url: URL, reusable: Bool, at moment: TimeInterval? = nil) {
        let now = moment ?? self.now
        update(url) { host in
            host.requests = max(0, host.requests - 1)
            if !reusable { host.connections = max(host.requests, host.connections - 1) }
            host.lastRequestEvent = now
        }
    }

    /// A request to `url` got its response head `seconds` after it was sent; `newConnection` is what
    /// `requestSent` said of it, `multiplexed` and `initialStreamWindow` what the transport said of the
    /// response's connection.
    func responded(
        _ url: URL, after seconds: TimeInterval, newConnection: Bool, multiplexed: Bool = false,
        initialStreamWindow: Int64 = OriginReadResponse.defaultStreamWindow, at moment: TimeInterval? = nil
    ) {
        let now = moment ?? self.now
        update(url) { host in
            host.lastAnswer = max(host.lastAnswer, now)
            host.multiplexed = multiplexed
            host.initialStreamWindow = initialStreamWindow
            if host.firstWait == nil { host.firstWait = max(0, seconds) }
            if newConnection {
                host.handshakeRoundTrips.add(max(0, seconds), at: now)
            } else {
                host.roundTrips.add(max(0, seconds), at: now)
            }
        }
    }

    /// A response from `url`'s host delivered `bytes` of body `seconds` after its request was sent.
    func delivered(_ bytes: Int64, from url: URL, after seconds: TimeInterval, at moment: TimeInterval? = nil) {
        let now = moment ?? self.now
        guard bytes > 0, seconds > 0 else { return }
        update(url) { host in host.negatedDeliveries.add(-Double(bytes) / seconds, at: now) }
    }

    /// A response body from `url`'s host starts arriving.
    func bodyStarted(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            if host.receiving == 0 { host.awaitsFirstChunk = true }
            host.receiving += 1
        }
    }

    /// `count` body bytes arrived from `url`'s host.
    func received(_ count: Int, from url: URL, at now: TimeInterval) {
        guard count > 0 else { return }
        update(url) { host in
            host.lastAnswer = max(host.lastAnswer, now)
            guard !host.awaitsFirstChunk else {
                // The sample's clock starts with this chunk's arrival.
                host.awaitsFirstChunk = false
                host.lastEvent = now
                return
            }
            host.settle(now)
            host.sampleBytes += Int64(count)
            if host.sampleTime >= Self.minimumSampleTime { host.closeSample() }
        }
    }

    /// A response body from `url`'s host stops being read for a while (the engine holds its request back):
    /// the time it waits is not the link's, so its rate samples leave it out until `bodyResumed`.
    func bodyPaused(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            host.receiving = max(0, host.receiving - 1)
            if host.receiving == 0 { host.awaitsFirstChunk = false }
        }
    }

    /// A body paused with `bodyPaused` is read again. Its next chunk may have waited in the socket, arriving
    /// at once: when no other body was arriving, it is left out of the sample with the time before it, as a
    /// first chunk is.
    func bodyResumed(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            if host.receiving == 0 { host.awaitsFirstChunk = true }
            host.receiving += 1
        }
    }

    /// A response body from `url`'s host ended (complete, cancelled or failed).
    func bodyEnded(_ url: URL, at now: TimeInterval) {
        update(url) { host in
            host.settle(now)
            host.receiving = max(0, host.receiving - 1)
            if host.receiving == 0 {
                host.awaitsFirstChunk = false
                host.closeSample()
            }
        }
    }

    /// Changes the record of `url`'s host (a new one if there is none yet) under the lock.
    private func update<Result>(_ url: URL, _ change: (inout Host) -> Result) -> Result {
        let key = Self.key(url)
        return hosts.withLock { hosts in change(&hosts[key, default: Host()]) }
    }

    /// Monotonic seconds (the wall clock can jump): the clock's uptime, the time base of the engine's requests,
    /// holds and their deadlines.
    var now: TimeInterval { clock.uptime }

    private static func key(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? -1)"
    }
}
