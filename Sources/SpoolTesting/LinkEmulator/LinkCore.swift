import Foundation

/// The running emulator behind `LinkEmulator`: listener, connection threads, fault driver and shared state.
///
/// Kept apart from `LinkEmulator` so threads hold this object, not the public one, whose `deinit` can then
/// still run and stop everything.
final class LinkCore: @unchecked Sendable {
    // @unchecked: the stored properties are immutable or `Locked`/`DispatchGroup`, both thread-safe.
    let port: Int
    let upstreamPort: Int
    let profile: LinkProfile
    let state = Locked(LinkState())
    let started = LinkClock.now()
    private let listener: Int32
    private let threads = DispatchGroup()

    /// The longest any thread waits before looking at faults and stop again.
    static let slice: UInt64 = 20_000_000
    /// Kernel buffers on the relay's own sockets: small, so loopback's megabytes of buffering do not hide
    /// the window.
    static let socketBuffer = 64 * 1024

    init(upstreamPort: Int, profile: LinkProfile) throws {
        self.upstreamPort = upstreamPort
        self.profile = profile
        (listener, port) = try POSIXSocket.listenOnLoopback(bufferBytes: Self.socketBuffer)
        spawn("LinkEmulator accept :\(port)") { [self] in acceptLoop() }
        if let faults = profile.faults {
            spawn("LinkEmulator faults :\(port)") { [self] in LinkFaultDriver(core: self, schedule: faults).run() }
        }
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Runs `body` on a new thread that `stop()` waits for.
    func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    /// Polls rather than blocking in accept() so stopping works the same on Linux and Darwin.
    private func acceptLoop() {
        while !isStopping {
            guard POSIXSocket.waitReadable(listener, milliseconds: 100),
                let fd = POSIXSocket.acceptConnection(listener)
            else { continue }
            let accepted = LinkClock.now()
            let index: Int? = state.withLock { state in
                state.stopping ? nil : state.admit(client: fd)
            }
            guard let index else {
                POSIXSocket.closeDescriptor(fd)
                break
            }
            spawn("LinkEmulator connection \(index)") { [self] in
                LinkRelay(core: self, index: index, client: fd, accepted: accepted).run()
            }
        }
        POSIXSocket.closeDescriptor(listener)
    }

    func gate(_ index: Int) -> LinkState.Gate {
        let now = LinkClock.now()
        return state.withLock { $0.gate(index, now: now, slice: Self.slice) }
    }

    func abort(_ index: Int, reset: Bool) {
        state.withLock { $0.abort(index, reset: reset) }
    }

    /// Counts bytes read from a source and serialises them onto the shared link: when their last bit is sent.
    func take(_ bytes: Int, direction: LinkPipe.Direction, now: UInt64) -> UInt64 {
        state.withLock { state in
            switch direction {
            case .toClient: state.counters.bytesFromUpstream += Int64(bytes)
            case .toUpstream: state.counters.bytesFromClients += Int64(bytes)
            }
            return state.serialise(
                bytes, direction: direction.rawValue, now: now, bitsPerSecond: profile.bitsPerSecond
            )
        }
    }

    func count(delivered bytes: Int, direction: LinkPipe.Direction) {
        guard bytes > 0 else { return }
        state.withLock { state in
            switch direction {
            case .toClient: state.counters.bytesToClients += Int64(bytes)
            case .toUpstream: state.counters.bytesToUpstream += Int64(bytes)
            }
        }
    }

    func blackout(seconds: TimeInterval) {
        let end = LinkClock.now() + LinkClock.nanoseconds(seconds)
        state.withLock { $0.blackoutUntil = max($0.blackoutUntil, end) }
    }

    func resetAllConnections() {
        state.withLock { state in
            for index in state.connections.keys { state.abort(index, reset: true) }
        }
    }

    /// Stops accepting, ends every connection, then waits (bounded) for all threads to finish. Idempotent.
    func stop() {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        // Every thread waits at most one slice (or the 100 ms accept poll) before seeing `stopping`.
        _ = threads.wait(timeout: .now() + 2)
    }
}
