import Foundation
import SpoolAsyncHTTPClient

@testable import Spool

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession as it runs on Apple's platforms, where Linux cannot: each chunk is pushed into a `PushedBody` as
/// it arrives (URLSession's delegate), and the body's pause stops the pushing until its resume (a suspended
/// data task reads nothing more from its socket, so TCP holds the sender back). The bytes come from
/// AsyncHTTPClient, which reads the socket only as chunks are pulled: a paused pump holds back the link as a
/// suspended task does.
final class PushingTransport: HTTPTransport {
    /// Whether the pump may push its next chunk, and the pumps waiting for it.
    private final class Valve: Sendable {
        private let state = LockedBox((paused: false, waiting: [CheckedContinuation<Void, Never>]()))

        func set(paused: Bool) {
            let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.paused = paused
                guard !paused else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for pump in waiting { pump.resume() }
        }

        func waitWhilePaused() async {
            await withCheckedContinuation { pump in
                let open = state.withLock { state -> Bool in
                    if !state.paused { return true }
                    state.waiting.append(pump)
                    return false
                }
                if open { pump.resume() }
            }
        }
    }

    private let inner = AsyncHTTPClientTransport()
    private let pauseCount = LockedBox(0)

    /// How many times a body paused its transfer.
    var pauses: Int { pauseCount.withLock { $0 } }

    var pausesUnreadBodies: Bool { true }

    var initialStreamWindow: Int64 { inner.initialStreamWindow }

    func send(_ request: URLRequest) async throws -> HTTPTransportResponse {
        let response = try await inner.send(request)
        let valve = Valve()
        let pump = LockedBox<Task<Void, Never>?>(nil)
        let pauseCount = pauseCount
        let body = PushedBody(
            flow: BodyFlow(pauseAbove: URLSessionTransport.pauseAbove, resumeBelow: URLSessionTransport.resumeBelow),
            control: { action in
                if action == .pause { pauseCount.withLock { $0 += 1 } }
                valve.set(paused: action == .pause)
            },
            cancel: {
                valve.set(paused: false)
                pump.withLock { $0 }?.cancel()
            })
        let source = response.body
        let task = Task { [weak body] in
            do {
                for try await chunk in source {
                    await valve.waitWhilePaused()
                    guard let body else { return }
                    body.receive(chunk)
                }
                body?.finish()
            } catch {
                body?.finish(throwing: error)
            }
        }
        pump.withLock { $0 = task }
        return HTTPTransportResponse(
            status: response.status, url: response.url, headerFields: response.fields, body: body.stream,
            multiplexed: response.multiplexed)
    }

    /// Closes the client's connections.
    func shutdown() async {
        await inner.shutdown()
    }
}
