import NIOCore

/// What a listener tells the app, and where a connection reaches its socket.
extension ProxyListener {
    /// What the app hears of an announcement of the listener's state machine, with the proxy's URLs.
    func event(for announcement: ListenerState.Announcement) -> ProxyEvent {
        let url = { (port: Int) in
            ProxyURLMapping(host: self.host, port: port, scope: self.scope, signer: self.responder.secrets.signer)
                .scopedBaseURL
        }
        switch announcement {
        case .lost(let port, let reason): return .listenerLost(url(port), reason: reason)
        case .listeningAgain(let port): return .listeningAgain(url(port))
        case .moved(let from, let to): return .moved(from: url(from), to: url(to))
        case .cannotListen(let port, let reason): return .cannotListen(url(port), reason: reason)
        }
    }

    /// Where a connection reaches a socket bound to `address`: the address itself, or loopback for the
    /// unspecified address (`0.0.0.0`, `::`).
    static func connectable(_ address: SocketAddress) -> SocketAddress {
        switch address.ipAddress {
        case "0.0.0.0": (try? SocketAddress(ipAddress: "127.0.0.1", port: 0)) ?? address
        case "::": (try? SocketAddress(ipAddress: "::1", port: 0)) ?? address
        default: address
        }
    }
}
