import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
public import Spool

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An `HTTPTransport` on AsyncHTTPClient, for `HTTPOrigin(transport:)` in servers and command-line tools:
/// bodies arrive in chunks as large as the socket reads, the network waits while the reader is slow
/// (AsyncHTTPClient reads the socket only when its one-buffer queue has been taken), and a body that is
/// dropped or no longer iterated closes its connection at once.
///
/// Call `shutdown()` when done: AsyncHTTPClient requires its clients to be shut down. (If the transport is
/// released without it, it starts the shutdown itself.)
public final class AsyncHTTPClientTransport: HTTPTransport {
    private struct State {
        /// One client per idle timeout, as AsyncHTTPClient sets that per client and requests carry their
        /// own; an origin uses one timeout, so in practice there is one client. Made at the first request.
        var clients: [Int64: HTTPClient] = [:]
        var isShutDown = false
    }

    private let maximumConnectionsPerHost: Int
    private let additionalTrustRoots: [URL]
    private let state = LockedBox(State())

    /// A transport keeping up to `maximumConnectionsPerHost` connections open to one host: the engine
    /// runs up to two range requests per reader, so a proxy serving many players needs many.
    /// `additionalTrustRoots` are PEM files of certificate authorities trusted besides the system's (a
    /// private CDN's, or a test's own).
    public init(maximumConnectionsPerHost: Int = 128, additionalTrustRoots: [URL] = []) {
        self.maximumConnectionsPerHost = max(1, maximumConnectionsPerHost)
        self.additionalTrustRoots = additionalTrustRoots
    }

    deinit {
        // Bodies keep the transport alive, so nothing is in flight any more.
        let clients = state.withLock { Array($0.clients.values) }
        for client in clients { client.shutdown().whenComplete { _ in } }
    }

    /// AsyncHTTPClient reads the socket again only once the body's last chunk was taken. Over HTTP/2 an
    /// unread stream still receives up to its window (8 MiB, see `initialStreamWindow`) of its range.
    public var pausesUnreadBodies: Bool { true }

    /// HTTP/2 streams start with an 8 MiB window here (AsyncHTTPClient's own target, advertised from the
    /// connection's start: see `HTTP2Windows`).
    public var initialStreamWindow: Int64 { Int64(HTTP2Windows.size) }

    /// Sends `request` without following redirects; `request.timeoutInterval` bounds the time to the
    /// response head (connecting included) and then each wait for the next body bytes.
    public func send(_ request: URLRequest) async throws -> HTTPTransportResponse {
        guard let url = request.url else { throw SpoolError.invalidResponse("a request without a URL") }
        let timeout = TimeAmount.milliseconds(Int64((max(request.timeoutInterval, 0.001) * 1000).rounded(.up)))
        let client = try client(idleTimeout: timeout)
        // AsyncHTTPClient may still send a request whose task was cancelled before `execute` (seen under load:
        // a read cancelled before it started reached the origin), and the bytes would be wasted.
        try Task.checkCancellation()
        let response: HTTPClientResponse
        do {
            response = try await client.execute(HTTPClientRequest(request, url: url), timeout: timeout)
        } catch {
            throw await CertificateDiagnosis.refined(TransportErrors.spoolError(error, url: url), url: url)
        }
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        let reader = ResponseBodyReader(response.body, url: url, keepingAlive: self)
        return HTTPTransportResponse(
            status: Int(response.status.code), url: url, headerFields: fields,
            body: AsyncThrowingStream { try await reader.next() }, multiplexed: response.version.major >= 2)
    }

    /// Closes every connection and stops the clients; bodies still being read fail. Requests sent
    /// afterwards fail with `SpoolError.network`.
    public func shutdown() async {
        let clients = state.withLock { state in
            state.isShutDown = true
            defer { state.clients = [:] }
            return Array(state.clients.values)
        }
        for client in clients {
            try? await client.shutdown()
        }
    }

    private func client(idleTimeout: TimeAmount) throws -> HTTPClient {
        try state.withLock { state in
            guard !state.isShutDown else { throw SpoolError.network("the HTTP client was shut down") }
            if let client = state.clients[idleTimeout.nanoseconds] { return client }
            let client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration(idleTimeout: idleTimeout)
            )
            state.clients[idleTimeout.nanoseconds] = client
            return client
        }
    }

    private func configuration(idleTimeout: TimeAmount) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        // HTTPOrigin follows redirects itself, under one policy for every transport.
        configuration.redirectConfiguration = .disallow
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: idleTimeout, read: idleTimeout)
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: maximumConnectionsPerHost)
        // A refused connection fails the request at once, as with URLSession: the engine has its own retries.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        configuration.tlsConfiguration = Self.tlsConfiguration(trusting: additionalTrustRoots)
        // AsyncHTTPClient offers no setting for HTTP/2's windows; this hook runs once per connection, before
        // its first request.
        configuration.http2ConnectionDebugInitializer = { HTTP2Windows.open(on: $0) }
        return configuration
    }

    /// The system's trust roots and `additionalTrustRoots`; a connection closes at once instead of after the
    /// server's `close_notify`. NIOSSL's default waits up to 5 s for it while reading on, and a request the
    /// engine cancels (a seek, a player gone) kept downloading the rest of its response meanwhile: over an
    /// emulated 40 Mbit/s link a player's HTTPS session took 17.7 × the bytes it played.
    package static func tlsConfiguration(trusting additionalTrustRoots: [URL]) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = additionalTrustRoots.map { .file($0.path) }
        tls.shutdownTimeout = .zero
        return tls
    }
}
