import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns URLSession's delegate callbacks into one awaitable response head and a stream of body chunks per
/// task, as the bytes arrive. (`URLSession.bytes(for:)` does not exist in FoundationNetworking.)
final class URLSessionBridge: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One running task's plumbing.
    private final class Transfer: @unchecked Sendable {
        let original: URLRequest
        var head: CheckedContinuation<HTTPURLResponse, any Error>?
        let body: AsyncThrowingStream<Data, any Error>.Continuation

        init(original: URLRequest, body: AsyncThrowingStream<Data, any Error>.Continuation) {
            self.original = original
            self.body = body
        }
    }

    private let transfers = LockedBox<[Int: Transfer]>([:])
    private let delegateQueue: OperationQueue
    // Set once in `init`, after `super.init()`: the session needs `self` as its delegate.
    private var session: URLSession!

    init(configuration: URLSessionConfiguration) {
        delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "Spool.URLSessionBridge"
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: delegateQueue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends `request`; returns when the response head has arrived. The body stream cancels the task when
    /// its consumer stops iterating; so does cancelling the calling task before the head arrives.
    func start(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let task = session.dataTask(with: request)
        let transfer = Transfer(original: request, body: continuation)
        continuation.onTermination = { @Sendable _ in task.cancel() }
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (head: CheckedContinuation<HTTPURLResponse, any Error>) in
                transfer.head = head
                transfers.withLock { $0[task.taskIdentifier] = transfer }
                task.resume()
            }
        } onCancel: {
            task.cancel()
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
        let failure = error.map(Self.spoolError)
        if let head = transfer.head {
            transfer.head = nil
            head.resume(throwing: failure ?? SpoolError.invalidResponse("no response"))
        }
        if let failure { transfer.body.finish(throwing: failure) } else { transfer.body.finish() }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let transfer = transfer(for: task) else { return completionHandler(nil) }
        // The redirected request must ask for the same bytes of the same version. Credentials go along
        // only to the same host, as browsers do.
        var redirected = request
        let sameHost = request.url?.host == transfer.original.url?.host
        for (name, value) in transfer.original.allHTTPHeaderFields ?? [:] {
            let lowered = name.lowercased()
            if !sameHost, lowered == "authorization" || lowered == "cookie" { continue }
            redirected.setValue(value, forHTTPHeaderField: name)
        }
        completionHandler(redirected)
    }

    private static func spoolError(_ error: any Error) -> any Error {
        if let urlError = error as? URLError, urlError.code == .cancelled { return CancellationError() }
        if let urlError = error as? URLError, urlError.code == .timedOut { return SpoolError.timedOut }
        return SpoolError.network(error.localizedDescription)
    }
}
