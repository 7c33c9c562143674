/// What one listening address of the proxy goes through, decided in one place: listening, lost (the system
/// reclaimed the socket of a suspended app, or accepting failed and closed it), listening again on the same
/// port, or on another one when that port is taken, failed, stopped.
///
/// A state machine in swift-nio's manner: each input returns the actions its driver (`ProxyListener`)
/// performs, and nothing else changes it. Every socket it asks for gets a new generation, so a late report
/// about an old socket (its accept loop ending after a new one took over) changes nothing.
struct ListenerState: Sendable {
    /// Where the listener is.
    enum Phase: Equatable, Sendable {
        /// Bound on `port`; `generation` names the socket.
        case listening(port: Int, generation: Int)
        /// The socket of `generation` is gone, a new one is being bound: first on `port`, then, if that is
        /// taken, on any free port (`samePortTried`).
        case rebinding(port: Int, generation: Int, samePortTried: Bool)
        /// No socket could be bound; `port` is the one URLs carried.
        case failed(port: Int, generation: Int, reason: String)
        /// `stop()` was called.
        case stopped
    }

    /// What the driver does.
    enum Action: Equatable, Sendable {
        /// Bind a new socket on `port` (`0`: any free port) and report the outcome with `bindFinished`.
        case bind(port: Int)
        /// Hand the socket just bound to the event loop under `generation` and accept on it.
        case adopt(generation: Int)
        /// Close the socket just bound: nothing wants it any more.
        case discardBound
        /// Close the socket of `generation`, if it is still open.
        case close(generation: Int)
        /// Tell the app.
        case announce(Announcement)
    }

    /// What the app is told, by port; the driver turns ports into URLs.
    enum Announcement: Equatable, Sendable {
        case lost(port: Int, reason: String)
        case listeningAgain(port: Int)
        case moved(from: Int, to: Int)
        case cannotListen(port: Int, reason: String)
    }

    /// How binding a socket ended.
    enum BindOutcome: Equatable, Sendable {
        case bound(port: Int)
        case addressInUse
        case failed(String)
    }

    private(set) var phase: Phase

    /// A listener whose first socket is bound on `port` (generation 1).
    init(listeningOn port: Int) {
        phase = .listening(port: port, generation: 1)
    }

    /// The port URLs carry, while there is a socket on it (or one being bound on it now); `nil` once failed or
    /// stopped.
    var port: Int? {
        switch phase {
        case .listening(let port, _): port
        case .rebinding(let port, _, let samePortTried): samePortTried ? nil : port
        case .failed, .stopped: nil
        }
    }

    /// The generation of the current socket while listening.
    var listeningGeneration: Int? {
        if case .listening(_, let generation) = phase { return generation }
        return nil
    }

    /// The socket of `generation` stopped accepting (its accept loop ended, or a connection to it was refused).
    mutating func lost(generation: Int, reason: String) -> [Action] {
        guard case .listening(let port, generation) = phase else { return [] }
        phase = .rebinding(port: port, generation: generation, samePortTried: false)
        return [.close(generation: generation), .announce(.lost(port: port, reason: reason)), .bind(port: port)]
    }

    /// After a failure, the app asks again (`ensureListening()`): the same port first, as after a loss.
    mutating func retry() -> [Action] {
        guard case .failed(let port, let generation, _) = phase else { return [] }
        phase = .rebinding(port: port, generation: generation, samePortTried: false)
        return [.bind(port: port)]
    }

    /// The outcome of the last `.bind`.
    mutating func bindFinished(_ outcome: BindOutcome) -> [Action] {
        guard case .rebinding(let port, let generation, let samePortTried) = phase else {
            // Stopped (or otherwise moved on) meanwhile: a socket bound now is nobody's.
            if case .bound = outcome { return [.discardBound] }
            return []
        }
        switch outcome {
        case .bound(let bound):
            phase = .listening(port: bound, generation: generation + 1)
            let news: Announcement = bound == port ? .listeningAgain(port: port) : .moved(from: port, to: bound)
            return [.adopt(generation: generation + 1), .announce(news)]
        case .addressInUse where !samePortTried:
            phase = .rebinding(port: port, generation: generation, samePortTried: true)
            return [.bind(port: 0)]
        case .addressInUse:
            return fail(port: port, generation: generation, reason: "no free port")
        case .failed(let reason):
            return fail(port: port, generation: generation, reason: reason)
        }
    }

    /// The event loop could not take the socket of `generation` over: it counts as lost.
    mutating func adoptionFailed(generation: Int, reason: String) -> [Action] {
        lost(generation: generation, reason: reason)
    }

    /// Stops for good; the current socket closes.
    mutating func stop() -> [Action] {
        let generation: Int?
        switch phase {
        case .listening(_, let current), .rebinding(_, let current, _), .failed(_, let current, _):
            generation = current
        case .stopped:
            return []
        }
        phase = .stopped
        return generation.map { [.close(generation: $0)] } ?? []
    }

    private mutating func fail(port: Int, generation: Int, reason: String) -> [Action] {
        phase = .failed(port: port, generation: generation, reason: reason)
        return [.announce(.cannotListen(port: port, reason: reason))]
    }
}
