/// What the package's tests reach into: `package`, so no app sees it.
extension SpoolProxy {
    /// Shuts the loopback (or the shared) listening socket down under the proxy, as iOS reclaims a suspended
    /// app's socket; `noticed: false` hides it from the proxy until `ensureListening()` looks. For tests.
    package func loseListeningSocketForTesting(shared: Bool = false, noticed: Bool = true) async {
        guard let running = try? running() else { return }
        if shared {
            if case .on(let listener) = running.sharing { await listener.loseSocketForTesting(noticed: noticed) }
        } else {
            await running.loopback.loseSocketForTesting(noticed: noticed)
        }
    }

    /// Returns once no HLS read-ahead runs (those cancelled included): for tests that check what was read
    /// ahead once it has stopped, rather than waiting a while.
    package func readAheadSettled() async {
        guard let running = try? running() else { return }
        await running.responder.readAhead.settled()
    }
}
