import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPOrigin`'s default transport: URLSession, with its delegate callbacks turned into one awaitable
/// response head and a stream of body chunks per task, as the bytes arrive. (`URLSession.bytes(for:)` does
/// not exist in FoundationNetworking.)
///
/// URLSession pushes chunks as fast as the network delivers them and the stream buffers them: there is no
/// backpressure, so a reader slower than the network holds the difference in memory.
final class URLSessionTransport: NSObject, HTTPTransport, URLSessionDataDelegate, @unchecked Sendable {
    /// One running task's plumbing.
    private final class Transfer: @unchecked Sendable {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>.Continuation

        init(body: AsyncThrowingStream<Data, any Error>.Continuation) {
            self.body = body
        }
    }

    /// Whether a task was started or its caller cancelled first.
    private enum Launch {
        case waiting, started, cancelled
    }

    private let transfers = LockedBox<[Int: Transfer]>([:])
    private let delegateQueue: OperationQueue
    // Set once in `init`, after `super.init()`: the session needs `self` as its delegate.
    private var session: URLSession!

    init(configuration: URLSessionConfiguration) {
        delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "Spool.URLSessionTransport"
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: delegateQueue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    func send(_ request: URLRequest) async throws -> HTTPTransportResponse {
        guard let url = request.url else { throw SpoolError.invalidResponse("a request without a URL") }
        let (response, body) = try await start(request)
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            fields[name] = value
        }
        return HTTPTransportResponse(
            status: response.statusCode, url: response.url ?? url, headerFields: fields, body: body)
    }

    /// Sends `request`; returns when the response head has arrived. The body stream cancels the task when
    /// its consumer stops iterating; so does cancelling the calling task before the head arrives.
    private func start(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let task = session.dataTask(with: request)
        let transfer = Transfer(body: continuation)
        continuation.onTermination = { @Sendable _ in task.cancel() }
        // A task cancelled before `resume()` does not reliably report its completion in FoundationNetworking,
        // so the head could be waited for forever: starting and cancelling happen under one lock, and a
        // cancellation that comes first means the task is never registered nor started.
        let launch = LockedBox(Launch.waiting, rank: .transferLaunch)
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPURLResponse, any Error>) in
                let started = launch.withLock { launch -> Bool in
                    guard launch == .waiting else { return false }
                    transfer.head = head
                    transfers.withLock { $0[task.taskIdentifier] = transfer }
                    task.resume()
                    launch = .started
                    return true
                }
                if !started { head.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            launch.withLock { launch in
                // A started task reports its cancellation through the delegate, which ends the wait.
                if launch == .started { task.cancel() }
                launch = .cancelled
            }
        }
        return (response, stream)
    }

    private func transfer(for task: URLSessionTask) -> Transfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let transfer = transfer(for: dataTask) else { return completionHandler(.cancel) }
        let head = transfer.head
        transfer.head = nil
        if let http = response as? HTTPURLResponse {
            head?.resume(returning: http)
            completionHandler(.allow)
        } else {
            head?.resume(throwing: SpoolError.invalidResponse("not an HTTP response"))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.body.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = task.originalRequest?.url
        let failure = error.map { Self.spoolError($0, url: url) }
        if let head = transfer.head {
            transfer.head = nil
            head.resume(throwing: failure ?? SpoolError.invalidResponse("no response"))
        }
        if let failure { transfer.body.finish(throwing: failure) } else { transfer.body.finish() }
    }

    /// Declines every redirect, so the 3xx response itself arrives: `HTTPOrigin` follows it under the same
    /// rules whatever the transport.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// URLSession's failure as the engine's: a cancellation, a timeout, or what happened with which server.
    private static func spoolError(_ error: any Error, url: URL?) -> any Error {
        guard let urlError = error as? URLError else { return SpoolError.network(error.localizedDescription) }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .timedOut: return SpoolError.timedOut(server: url.map(NetworkFailure.authority(of:)))
        default: break
        }
        guard let url else { return SpoolError.network(error.localizedDescription) }
        let kind: NetworkFailure.Kind =
            switch urlError.code {
            case .cannotConnectToHost: .refused
            case .networkConnectionLost: .reset
            case .cannotFindHost, .dnsLookupFailed: .unknownHost
            case .notConnectedToInternet: .offline
            case .serverCertificateHasUnknownRoot: .tls(NetworkFailure.unknownAuthority)
            case .serverCertificateHasBadDate: .tls(NetworkFailure.expiredCertificate())
            case .serverCertificateNotYetValid: .tls(NetworkFailure.certificateNotYetValid())
            case .serverCertificateUntrusted: .tls(NetworkFailure.untrustedCertificate)
            case .secureConnectionFailed: .tls(urlError.localizedDescription)
            default: .other(urlError.localizedDescription)
            }
        return NetworkFailure.error(kind, url: url)
    }
}
