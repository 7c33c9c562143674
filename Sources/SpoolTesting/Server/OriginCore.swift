import Foundation

/// The running server behind `TestOrigin`: listener, connection threads and shared state.
///
/// Kept separate from `TestOrigin` so threads hold this object, not the public one, and the
/// public object's `deinit` can still run and stop everything.
final class OriginCore: @unchecked Sendable {
    // @unchecked: the stored properties are immutable or `Locked`/`DispatchGroup`, both thread-safe.
    let port: Int
    let state = Locked(OriginState())
    private let listener: Int32
    private let threads = DispatchGroup()

    init(port: UInt16 = 0) throws {
        (listener, self.port) = try POSIXSocket.listenOnLoopback(port: port)
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "TestOrigin accept :\(port)"
        thread.start()
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Polls rather than blocking in accept() so stopping works the same on Linux and Darwin
    /// (shutdown() on a listening socket does not wake accept() everywhere).
    private func acceptLoop() {
        while !isStopping {
            guard POSIXSocket.waitReadable(listener, milliseconds: 100),
                let fd = POSIXSocket.acceptConnection(listener)
            else { continue }
            if let size = state.withLock({ $0.behaviour.sendBufferBytes }) {
                POSIXSocket.setSendBuffer(fd, bytes: size)
            }
            let id: Int? = state.withLock { state in
                guard !state.stopping else { return nil }
                let id = state.nextConnectionID
                state.nextConnectionID += 1
                state.connections[id] = fd
                return id
            }
            guard let id else {
                POSIXSocket.closeDescriptor(fd)
                break
            }
            threads.enter()
            let thread = Thread { [self] in
                Connection(core: self, fd: fd).run()
                // Closing under the lock guarantees stop() never shuts down a reused number.
                state.withLock { state in
                    state.connections[id] = nil
                    POSIXSocket.closeDescriptor(fd)
                }
                threads.leave()
            }
            thread.name = "TestOrigin connection \(id)"
            thread.start()
        }
        POSIXSocket.closeDescriptor(listener)
    }

    /// Shuts down every open connection, then waits (bounded) for all threads to finish.
    func stop() {
        let open: [Int32]? = state.withLock { state in
            guard !state.stopping else { return nil }
            state.stopping = true
            return Array(state.connections.values)
        }
        guard let open else { return }
        open.forEach(POSIXSocket.shutdownBoth)
        _ = threads.wait(timeout: .now() + 5)
    }

    /// Stores a new version of the content at `path`.
    func serve(_ content: TestContent, at path: String, contentType: String) {
        state.withLock { state in
            state.contentVersion += 1
            state.resources[path] = ServedResource(
                content: content, contentType: contentType, path: path, version: state.contentVersion
            )
        }
    }
}
