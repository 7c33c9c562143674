import Foundation

/// One client connection through the link: the handshake's round trip, the upstream connection, then a
/// `LinkPipe` each way, and closing both sockets at the end.
struct LinkRelay {
    let core: LinkCore
    let index: Int
    let client: Int32
    let accepted: UInt64

    func run() {
        defer { closeSockets() }
        POSIXSocket.setBufferSizes(client, bytes: LinkCore.socketBuffer)
        // The kernel has already completed the handshake on loopback; the client's first bytes may not move
        // until the SYN / SYN-ACK round trip a real link would have cost.
        guard waitForHandshake(),
            let upstream = try? POSIXSocket.connectToLoopback(
                port: core.upstreamPort, timeoutSeconds: 0, bufferBytes: LinkCore.socketBuffer)
        else {
            core.abort(index, reset: true)
            return
        }
        POSIXSocket.setNoDelay(upstream)
        let registered = core.state.withLock { state -> Bool in
            guard state.connections[index] != nil else { return false }
            state.connections[index]?.upstream = upstream
            return true
        }
        guard registered else {
            POSIXSocket.closeDescriptor(upstream)
            return
        }
        let downstreamDone = DispatchSemaphore(value: 0)
        core.spawn("LinkEmulator connection \(index) down") { [core, index, client] in
            LinkPipe(core: core, index: index, direction: .toClient, source: upstream, destination: client).run()
            downstreamDone.signal()
        }
        LinkPipe(core: core, index: index, direction: .toUpstream, source: client, destination: upstream).run()
        downstreamDone.wait()
    }

    /// Waits one round trip from the accept, longer while the link is blacked out or this connection stalled;
    /// false when the connection must end first.
    private func waitForHandshake() -> Bool {
        let ready = accepted + LinkClock.nanoseconds(core.profile.roundTrip)
        while true {
            switch core.gate(index) {
            case .quit:
                return false
            case .hold(let nanoseconds):
                LinkClock.sleep(nanoseconds)
            case .go:
                let now = LinkClock.now()
                if now >= ready { return true }
                LinkClock.sleep(min(ready - now, LinkCore.slice))
            }
        }
    }

    /// Closing under the lock, together with forgetting the entry, guarantees a fault never reaches a
    /// descriptor number the kernel has reused.
    private func closeSockets() {
        core.state.withLock { state in
            guard let entry = state.connections.removeValue(forKey: index) else { return }
            state.stalled.remove(index)
            POSIXSocket.closeDescriptor(entry.client)
            if let upstream = entry.upstream { POSIXSocket.closeDescriptor(upstream) }
        }
    }
}
