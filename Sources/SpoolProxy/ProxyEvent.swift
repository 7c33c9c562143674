import Foundation

/// What happened to one of the proxy's listening sockets, as `SpoolProxy.events()` tells it. Each names the
/// base URL concerned: `http://127.0.0.1:PORT`, or the local network's `http://ADDRESS:PORT/s/<token>`.
///
/// iOS takes the listening socket of a suspended app (and any socket can fail under a process). The proxy
/// listens again on the same port at once, so the URLs it handed out keep working: `listenerLost` followed by
/// `listeningAgain`. Only when the port was taken meanwhile does it move (`moved`): URLs made before point to
/// the old port, so the app makes new ones with `url(for:)` and gives them to its players.
public enum ProxyEvent: Sendable, Equatable, CustomStringConvertible {
    /// The socket at this address stopped accepting connections.
    case listenerLost(URL, reason: String)
    /// A new socket listens at the same address and port: every URL handed out works again.
    case listeningAgain(URL)
    /// The port was taken: the proxy listens on another one. URLs made before no longer work.
    case moved(from: URL, to: URL)
    /// No socket could be bound: `url(for:)` throws `ProxyError.notListening` until a later call (or
    /// `ensureListening()`) binds one.
    case cannotListen(URL, reason: String)

    /// One line: `listening again at http://127.0.0.1:8080`.
    public var description: String {
        switch self {
        case .listenerLost(let url, let reason): "stopped listening at \(url.absoluteString): \(reason)"
        case .listeningAgain(let url): "listening again at \(url.absoluteString)"
        case .moved(let from, let to): "moved from \(from.absoluteString) to \(to.absoluteString): the port was taken"
        case .cannotListen(let url, let reason): "cannot listen at \(url.absoluteString) again: \(reason)"
        }
    }
}
