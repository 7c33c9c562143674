import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Spool
import SpoolAsyncHTTPClient

/// The benchmarks' "direct" player: reads the origin with a client like a player's own (AVPlayer's
/// CFNetwork, ExoPlayer's OkHttp): keep-alive connections reused from one request to the next, HTTP/2 (one
/// connection, a stream per request) where the origin offers it over TLS, TLS session tickets within the
/// run, and a hang-up that closes an HTTP/1.1 connection (the next request opens a new one) but only
/// resets an HTTP/2 stream.
///
/// One instance is one player session: make a new one for a cold start, `shutdown()` it when done.
final class PlayerHTTPClient: RangeReading, Sendable {
    private let client: HTTPClient

    /// A client trusting `trustRoots` (PEM files) besides the system's; a read fails after `timeoutSeconds`
    /// without a byte.
    init(trustRoots: [URL] = [], timeoutSeconds: Int64 = 30) {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        let timeout = TimeAmount.seconds(timeoutSeconds)
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: timeout, read: timeout)
        configuration.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 8)
        // Spool's own: a player hanging up closes the connection at once, without reading on for the
        // server's close_notify.
        configuration.tlsConfiguration = AsyncHTTPClientTransport.tlsConfiguration(trusting: trustRoots)
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes every connection.
    func shutdown() {
        try? client.syncShutdown()
    }

    func get(_ url: URL, range: String?, limit: Int64?, marks: [Int64]) throws -> RangeReader.Transfer {
        var request = try HTTPClient.Request(url: url)
        if let range { request.headers.add(name: "Range", value: range) }
        let delegate = TransferDelegate(limit: limit, marks: marks)
        let task = client.execute(request: request, delegate: delegate)
        do {
            return try task.futureResult.wait()
        } catch let error as HTTPClientError where error == .cancelled {
            // The delegate hung up once it had its bytes: the player's cancel, not a failure.
            guard let transfer = delegate.cutTransfer else {
                throw CommandFailure(message: "direct client: \(url.absoluteString) cancelled")
            }
            return transfer
        } catch {
            throw CommandFailure(message: "direct client: \(url.absoluteString): \(error)")
        }
    }
}

/// Counts one response's body as it arrives, the way `RangeReader` does, and cancels the request once
/// `limit` bytes came.
private final class TransferDelegate: HTTPClientResponseDelegate {
    typealias Response = RangeReader.Transfer

    private struct Progress {
        var transfer = RangeReader.Transfer(status: 0, bodyBytes: 0, firstByte: 0, total: 0)
        var wanted: Int64?
        var lastReceive = 0.0
        var cut = false
    }

    private let start = DispatchTime.now().uptimeNanoseconds
    private let marks: [Int64]
    private let progress: LockedBox<Progress>

    init(limit: Int64?, marks: [Int64]) {
        self.marks = marks
        var initial = Progress()
        initial.wanted = limit
        initial.transfer.markTimes = Array(repeating: nil, count: marks.count)
        progress = LockedBox(initial)
    }

    /// The transfer, if this delegate cut it after `limit` bytes.
    var cutTransfer: RangeReader.Transfer? {
        progress.withLock { $0.cut ? $0.transfer : nil }
    }

    private var now: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

    func didReceiveHead(task: HTTPClient.Task<Response>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let now = self.now
        progress.withLock { progress in
            progress.transfer.status = Int(head.status.code)
            progress.transfer.firstByte = now
            progress.transfer.longestGap = now
            progress.lastReceive = now
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Response>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let now = self.now
        let done = progress.withLock { progress -> Bool in
            guard !progress.cut else { return false }
            progress.transfer.bodyBytes += Int64(buffer.readableBytes)
            progress.transfer.longestGap = max(progress.transfer.longestGap, now - progress.lastReceive)
            progress.lastReceive = now
            if progress.transfer.firstBodyByte == nil { progress.transfer.firstBodyByte = now }
            for (index, mark) in marks.enumerated()
            where progress.transfer.markTimes[index] == nil && progress.transfer.bodyBytes >= mark {
                progress.transfer.markTimes[index] = now
            }
            guard let wanted = progress.wanted, progress.transfer.bodyBytes >= wanted else { return false }
            progress.transfer.bodyBytes = wanted
            progress.transfer.total = now
            progress.cut = true
            return true
        }
        if done { task.cancel() }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Response>) throws -> Response {
        let now = self.now
        return progress.withLock { progress in
            if !progress.cut { progress.transfer.total = now }
            return progress.transfer
        }
    }
}
