import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An origin that reads http and https URLs with URLSession.
///
/// Content information comes from `HEAD`, or from `GET bytes=0-1` where `HEAD` is refused or says too little.
/// Redirects are followed and the final URL is remembered for the next range requests of the same resource.
public final class HTTPOrigin: Origin {
    private let bridge: URLSessionBridge
    private let modifier: HTTPRequestModifier?
    private let timeout: TimeInterval
    private let finalURLs = LockedBox<[URL: URL]>([:])

    /// An origin sending requests through a session made from `configuration`, each changed by `modifier`.
    /// `timeout` bounds the wait for the next byte of a response, not its whole duration.
    public init(
        configuration: URLSessionConfiguration = .default,
        modifier: HTTPRequestModifier? = nil,
        timeout: TimeInterval = 30
    ) {
        let configuration = configuration
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // FoundationNetworking waits for the session's idle timeout, not the request's: set both.
        configuration.timeoutIntervalForRequest = timeout
        bridge = URLSessionBridge(configuration: configuration)
        self.modifier = modifier
        self.timeout = timeout
    }

    public func contentInfo(for url: URL) async throws -> ContentInfo {
        try Self.checkScheme(of: url)
        let head = try await send(url: url, method: "HEAD", range: nil, validator: nil).head
        switch head.status {
        case 200..<300:
            // Only a head that gives a length and advertises ranges is enough; otherwise the probe tells.
            if let length = head.contentLength, head.advertisesRanges == true {
                return head.contentInfo(length: length, acceptsRanges: true)
            }
        case 404, 410:
            throw SpoolError.httpStatus(head.status)
        default:
            break  // HEAD refused (405, 501, 403 on signed URLs): fall back to the probe.
        }
        return try await probe(url)
    }

    public func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
        try Self.checkScheme(of: request.url)
        let (head, body) = try await send(
            url: request.url, method: "GET", range: request.range, validator: request.validator)
        switch head.status {
        case 206:
            guard let contentRange = head.contentRange, let range = contentRange.range else {
                throw SpoolError.invalidResponse("206 without a usable Content-Range")
            }
            guard range.lowerBound <= request.range.lowerBound, range.upperBound > request.range.lowerBound else {
                throw SpoolError.invalidResponse("asked for bytes from \(request.range.lowerBound), got \(range)")
            }
            guard let total = contentRange.total else {
                throw SpoolError.invalidResponse("206 without the resource's total length")
            }
            return OriginReadResponse(
                offset: range.lowerBound, info: head.contentInfo(length: total, acceptsRanges: true), body: body)
        case 200:
            guard let length = head.contentLength else {
                throw SpoolError.invalidResponse("200 without Content-Length to a range request")
            }
            return OriginReadResponse(offset: 0, info: head.contentInfo(length: length, acceptsRanges: false), body: body)
        case 416:
            let length = head.contentRange?.total ?? -1
            throw SpoolError.rangeNotSatisfiable(requested: request.range.lowerBound, length: length)
        default:
            throw SpoolError.httpStatus(head.status)
        }
    }

    /// `GET bytes=0-1`: learns length, type, version and range support from two bytes.
    private func probe(_ url: URL) async throws -> ContentInfo {
        let (head, body) = try await send(url: url, method: "GET", range: 0..<2, validator: nil)
        _ = body  // dropping the stream cancels whatever body a non-range server starts to send
        switch head.status {
        case 206:
            guard let total = head.contentRange?.total else {
                throw SpoolError.invalidResponse("206 without the resource's total length")
            }
            return head.contentInfo(length: total, acceptsRanges: true)
        case 200:
            guard let length = head.contentLength else {
                throw SpoolError.invalidResponse("the origin reports no length for the resource")
            }
            return head.contentInfo(length: length, acceptsRanges: false)
        case 416:
            // Only an empty resource has no bytes 0-1.
            return head.contentInfo(length: head.contentRange?.total ?? 0, acceptsRanges: true)
        default:
            throw SpoolError.httpStatus(head.status)
        }
    }

    private func send(
        url: URL, method: String, range: Range<Int64>?, validator: String?
    ) async throws -> (head: HTTPResponseHead, body: AsyncThrowingStream<Data, any Error>) {
        let target = finalURLs.withLock { $0[url] } ?? url
        var request = URLRequest(url: target, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        // Media must arrive byte for byte: a compressed body would not match the ranges.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let range {
            request.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
            if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        if let modifier { try await modifier.apply(to: &request) }
        let (response, body) = try await bridge.start(request)
        let head = HTTPResponseHead(response)
        if let final = head.finalURL, final != target, (200..<300).contains(head.status) {
            finalURLs.withLock { $0[url] = final }
        } else if target != url, head.status >= 400 {
            // A remembered redirect target that fails (an expired signature) is forgotten: the next
            // request starts again from the original URL.
            _ = finalURLs.withLock { $0.removeValue(forKey: url) }
        }
        return (head, body)
    }

    private static func checkScheme(of url: URL) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", url.host != nil else {
            throw SpoolError.unsupportedScheme(scheme.isEmpty ? url.absoluteString : scheme)
        }
    }
}
