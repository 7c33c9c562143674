import NIOCore
import NIOPosix
import Spool

/// One listening address of the proxy (loopback, or the local network's), kept listening through an app's
/// life: the driver of `ListenerState`, which decides; this performs.
///
/// A socket is lost when its accept loop ends without `stop()` (NIO closed it after an accept error), when
/// `mapping()` finds it closed or no longer listening, or when this proxy does not answer a ping on it:
/// pinged after an accept error NIO retries by itself (a reclaimed socket fails every accept with
/// `ECONNABORTED` and refuses every client), and when the app asks (`ensureListening()`). Then a new socket is
/// bound on the same port at once, or on a free one when that port is taken, and the app is told
/// (`ProxyEvent`). Connections already open are the server's and carry on.
///
/// Concurrency: the state and the sockets' bookkeeping sit behind one lock. Binding happens under it
/// (`ListeningSocket` never waits), so whoever reads the state after a loss finds a socket listening again;
/// handing the socket to the event loop, closing channels and telling the app happen after it is released.
final class ProxyListener: Sendable {
    /// Which listener this is, for the connections it accepts (the server closes them by it).
    let id: Int
    /// What URLs name: the configured host, and the prefix of every shared path.
    let host: String
    let scope: String
    /// The address bound, resolved once (its port is set per bind), and where to connect to check it.
    private let address: SocketAddress
    private let probeAddress: SocketAddress
    private let server: ProxyServer
    let responder: ProxyResponder
    private let gate: SharingGate?
    private let announce: @Sendable (ProxyEvent) -> Void
    private let guarded: LockedBox<Guarded>

    private struct Guarded {
        var machine: ListenerState
        /// The socket bound by the last `.bind`, until it is adopted or discarded.
        var bound: CInt?
        /// The channels and descriptors of the sockets adopted, by generation.
        var channels: [Int: Channel] = [:]
        var descriptors: [Int: CInt] = [:]
        /// The tasks that adopt a socket and accept on it, by generation: `stop()` waits for them.
        var loops: [Int: Task<Void, Never>] = [:]
        /// A check of the socket is under way.
        var probing = false
        /// Generations whose loss the listener is not to notice by itself (tests of a silent loss).
        var unnoticed: Set<Int> = []
    }

    /// What `handle` leaves for after the lock.
    private enum Deferred {
        case close(Channel)
        case announce(ListenerState.Announcement)
    }

    private init(
        id: Int, host: String, scope: String, address: SocketAddress, server: ProxyServer, responder: ProxyResponder,
        gate: SharingGate?, announce: @escaping @Sendable (ProxyEvent) -> Void, machine: ListenerState
    ) {
        self.id = id
        self.host = host
        self.scope = scope
        self.address = address
        probeAddress = Self.connectable(address)
        self.server = server
        self.responder = responder
        self.gate = gate
        self.announce = announce
        guarded = LockedBox(Guarded(machine: machine), rank: .proxyListener)
    }

    /// Binds `host:port` (`0`: a free port) and starts accepting. `gate`, for the local network's listener,
    /// checks every request's token, and its scope is the path prefix the listener's URLs carry.
    static func start(
        id: Int, host: String, port: Int, server: ProxyServer, responder: ProxyResponder, gate: SharingGate? = nil,
        announce: @escaping @Sendable (ProxyEvent) -> Void
    ) async throws -> ProxyListener {
        // A host name is resolved with a blocking lookup: on NIO's thread pool, never on Swift's.
        let address = try await NIOThreadPool.singleton.runIfActive {
            try SocketAddress.makeAddressResolvingHost(host, port: port)
        }
        let (descriptor, bound) = try ListeningSocket.bind(address, port: port).mapError { failure in
            ProxyError.cannotListen("\(host):\(port): \(failure)")
        }.get()
        let listener = ProxyListener(
            id: id, host: host, scope: gate?.scope ?? "", address: address, server: server, responder: responder,
            gate: gate, announce: announce, machine: ListenerState(listeningOn: bound))
        // The first socket is in the event loop's hands before `start` returns, as NIO's own bind would be.
        let adopted = MultiThreadedEventLoopGroup.singleton.any().makePromise(of: Void.self)
        listener.guarded.withLock { guarded in
            listener.adopt(descriptor, generation: 1, in: &guarded, adopted: adopted)
        }
        do {
            try await adopted.futureResult.get()
        } catch {
            await listener.stop()
            throw error
        }
        return listener
    }

    /// The mapping of this listener's URLs while a socket listens. Looks at the socket first (closed, or no
    /// longer listening: lost, and bound again at once), and after a failure to listen again tries once more.
    /// Throws `ProxyError.notListening` when that fails too, `notRunning` once stopped.
    func mapping() throws -> ProxyURLMapping {
        // Under the lock, like binding: `isListening` is one system call that never waits, and the descriptor
        // cannot be closed and reused meanwhile by anything this listener does.
        let dead = guarded.withLock { guarded -> Int? in
            guard let generation = guarded.machine.listeningGeneration,
                let channel = guarded.channels[generation], let descriptor = guarded.descriptors[generation]
            else { return nil }
            return channel.isActive && ListeningSocket.isListening(descriptor) ? nil : generation
        }
        if let dead { handle { $0.lost(generation: dead, reason: "the socket no longer listens") } }
        handle { $0.retry() }
        return try currentMapping()
    }

    /// Checks that a connection to the socket is taken (the system may have reclaimed it while the app was
    /// suspended without anything noticing) and listens again if it is not; returns the mapping then.
    func ensureListening() async throws -> ProxyURLMapping {
        handle { $0.retry() }
        // A plain guard, not `Optional.map` over the locked value: Swift 6.3's optimizer (release builds only)
        // crashed on that closure with an ownership verifier error.
        let current = guarded.withLock { guarded -> (generation: Int, port: Int)? in
            guard let generation = guarded.machine.listeningGeneration, let port = guarded.machine.port else {
                return nil
            }
            return (generation, port)
        }
        if let current { await check(port: current.port, generation: current.generation) }
        return try currentMapping()
    }

    /// Stops accepting and waits until the socket's tasks have ended. Connections stay (the server's).
    func stop() async {
        handle { $0.stop() }
        let loops = guarded.withLock { Array($0.loops.values) }
        for loop in loops { await loop.value }
    }

    /// Shuts the listening socket down under the event loop, as the system reclaims a suspended app's socket.
    /// `noticed: false` hides the loss from the listener (as on a device, where nothing may be reported until
    /// a client is refused); then `ensureListening()` must find it. Returns once the event loop has closed the
    /// old socket, so its port is free. For tests.
    package func loseSocketForTesting(noticed: Bool) async {
        let lost = guarded.withLock { guarded -> (CInt, Channel)? in
            guard let generation = guarded.machine.listeningGeneration,
                let descriptor = guarded.descriptors[generation], let channel = guarded.channels[generation]
            else { return nil }
            if !noticed { guarded.unnoticed.insert(generation) }
            return (descriptor, channel)
        }
        guard let (descriptor, channel) = lost else { return }
        ListeningSocket.shutDown(descriptor)
        try? await channel.closeFuture.get()
    }

    // MARK: - Driving the state machine

    /// Applies `input` to the state and performs the actions it returns: binding under the lock, the rest
    /// after it.
    private func handle(_ input: (inout ListenerState) -> [ListenerState.Action]) {
        let deferred = guarded.withLock { guarded -> [Deferred] in
            var deferred: [Deferred] = []
            var pending = input(&guarded.machine)
            while !pending.isEmpty {
                switch pending.removeFirst() {
                case .bind(let port):
                    let outcome: ListenerState.BindOutcome
                    switch ListeningSocket.bind(address, port: port) {
                    case .success(let socket):
                        guarded.bound = socket.descriptor
                        outcome = .bound(port: socket.port)
                    case .failure(.addressInUse): outcome = .addressInUse
                    case .failure(.other(let reason)): outcome = .failed(reason)
                    }
                    pending += guarded.machine.bindFinished(outcome)
                case .adopt(let generation):
                    if let descriptor = guarded.bound {
                        guarded.bound = nil
                        adopt(descriptor, generation: generation, in: &guarded)
                    }
                case .discardBound:
                    if let descriptor = guarded.bound { ListeningSocket.discard(descriptor) }
                    guarded.bound = nil
                case .close(let generation):
                    guarded.descriptors[generation] = nil
                    if let channel = guarded.channels.removeValue(forKey: generation) {
                        deferred.append(.close(channel))
                    }
                case .announce(let announcement):
                    deferred.append(.announce(announcement))
                }
            }
            return deferred
        }
        for item in deferred {
            switch item {
            case .close(let channel): channel.close(promise: nil)
            case .announce(let announcement): announce(event(for: announcement))
            }
        }
    }

    /// Starts the task that hands `descriptor` to the event loop and accepts on it; registered under the
    /// lock, so `stop()` waits for it. `adopted` is completed once the event loop has the socket (or could
    /// not take it).
    private func adopt(
        _ descriptor: CInt, generation: Int, in guarded: inout Guarded, adopted: EventLoopPromise<Void>? = nil
    ) {
        guarded.descriptors[generation] = descriptor
        guarded.loops[generation] = Task { await self.accept(on: descriptor, generation: generation, adopted: adopted) }
    }

    private func accept(on descriptor: CInt, generation: Int, adopted: EventLoopPromise<Void>?) async {
        defer { guarded.withLock { _ = $0.loops.removeValue(forKey: generation) } }
        let listener: ProxyServer.Listener
        do {
            listener = try await server.adopt(
                descriptor, listenerID: id, responder: responder, gate: gate,
                acceptFailed: { [weak self] in self?.acceptFailed() })
        } catch {
            adopted?.fail(ProxyError.cannotListen("\(host): the event loop refused the socket: \(error)"))
            handle { $0.adoptionFailed(generation: generation, reason: "the event loop refused the socket: \(error)") }
            return
        }
        let current = guarded.withLock { guarded -> Bool in
            guard guarded.machine.listeningGeneration == generation else { return false }
            guarded.channels[generation] = listener.channel
            return true
        }
        adopted?.succeed()
        // Lost or stopped while it was being adopted: nobody listens on it any more.
        guard current else {
            try? await listener.channel.close()
            return
        }
        await server.accept(on: listener)
        // The accept loop ended: `stop()`, a newer socket, or this one failed under it.
        let unnoticed = guarded.withLock { $0.unnoticed.remove(generation) != nil }
        if !unnoticed { handle { $0.lost(generation: generation, reason: "the listening socket closed") } }
    }

    /// An accept failed: a check, one at a time, tells a passing error from a socket the system reclaimed.
    private func acceptFailed() {
        let target = guarded.withLock { guarded -> (Int, Int)? in
            guard !guarded.probing, let generation = guarded.machine.listeningGeneration,
                let port = guarded.machine.port, !guarded.unnoticed.contains(generation)
            else { return nil }
            guarded.probing = true
            return (generation, port)
        }
        guard let (generation, port) = target else { return }
        Task {
            await check(port: port, generation: generation)
            guarded.withLock { $0.probing = false }
        }
    }

    /// Pings the socket of `generation`; if this proxy does not answer (the connection is refused, or
    /// another program took the port), the socket is lost.
    private func check(port: Int, generation: Int) async {
        var target = probeAddress
        target.port = port
        let answered = await ListenerProbe.answers(
            at: target, path: scope + SpoolProxy.pingPath, secrets: responder.secrets, clock: responder.cache.clock)
        guard !answered else { return }
        handle { $0.lost(generation: generation, reason: "this proxy does not answer there") }
    }

    private func currentMapping() throws -> ProxyURLMapping {
        let phase = guarded.withLock { $0.machine.phase }
        switch phase {
        case .listening(let port, _):
            return ProxyURLMapping(host: host, port: port, scope: scope, signer: responder.secrets.signer)
        case .rebinding: throw ProxyError.notListening("listening again")
        case .failed(_, _, let reason): throw ProxyError.notListening(reason)
        case .stopped: throw ProxyError.notRunning
        }
    }
}
