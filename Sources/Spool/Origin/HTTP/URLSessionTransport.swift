import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPOrigin`'s default transport: URLSession, with its delegate callbacks turned into one awaitable
/// response head and a stream of body chunks per task, as the bytes arrive. (`URLSession.bytes(for:)` does
/// not exist in FoundationNetworking.)
///
/// URLSession pushes chunks as fast as the network delivers them. On Apple's platforms a body holding
/// `pauseAbove` bytes its reader has not taken suspends its task, and the task resumes once the reader has
/// taken all but `resumeBelow` (`PushedBody`): a suspended task "produces no network traffic" (the
/// documentation of `URLSessionTask.suspend()`), so the socket's receive window stops the server, and a
/// request the engine holds back holds back the link. Apple's own OpenAPI transport for URLSession bounds its
/// response bodies the same way from iOS 15 and macOS 12. FoundationNetworking suspends a task by taking it
/// off libcurl and resumes it by sending the request again from its start, so on Linux bodies never pause:
/// a reader slower than the network holds the difference in memory.
final class URLSessionTransport: NSObject, HTTPTransport, URLSessionDataDelegate, @unchecked Sendable {
    /// One running task's plumbing.
    private final class Transfer: @unchecked Sendable {
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        /// Weak: the stream the engine reads holds the body, and dropping it cancels the task.
        weak var body: PushedBody?

        init(body: PushedBody) {
            self.body = body
        }
    }

    #if canImport(FoundationNetworking)
    /// Whether a task's transfer pauses while its body is unread: not where resuming starts it over.
    static let pausesTransfers = false
    #else
    /// Whether a task's transfer pauses while its body is unread.
    static let pausesTransfers = true
    #endif
    /// Unread bytes at which a body suspends its task: more than a chunk or two, so that a reader that keeps
    /// up never pauses the transfer, and little beside the engine's own read-ahead bound.
    static let pauseAbove = 256 * 1024
    /// Unread bytes at which a suspended task resumes: what its socket receives while the resume reaches it.
    static let resumeBelow = 64 * 1024

    var pausesUnreadBodies: Bool { Self.pausesTransfers }

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
        let task = session.dataTask(with: request)
        let body = PushedBody(
            flow: BodyFlow(pauseAbove: Self.pausesTransfers ? Self.pauseAbove : nil, resumeBelow: Self.resumeBelow),
            control: { action in
                switch action {
                case .pause: task.suspend()
                case .resume: task.resume()
                }
            },
            cancel: { task.cancel() })
        let transfer = Transfer(body: body)
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
        return (response, body.stream)
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
        guard let head = transfer.head else {
            // A second response to one task: it started over (after a pause), and its bytes would be the
            // start's again, where the reader expects the next ones.
            transfer.body?.finish(throwing: SpoolError.invalidResponse("the transfer started over after a pause"))
            return completionHandler(.cancel)
        }
        transfer.head = nil
        if let http = response as? HTTPURLResponse {
            head.resume(returning: http)
            completionHandler(.allow)
        } else {
            head.resume(throwing: SpoolError.invalidResponse("not an HTTP response"))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.body?.receive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let url = task.originalRequest?.url
        let failure = error.map { Self.spoolError($0, url: url) }
        if let head = transfer.head {
            transfer.head = nil
            head.resume(throwing: failure ?? SpoolError.invalidResponse("no response"))
        }
        transfer.body?.finish(throwing: failure)
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
