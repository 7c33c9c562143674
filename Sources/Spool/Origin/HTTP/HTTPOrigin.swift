import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An origin that reads http and https URLs, through URLSession unless given another `HTTPTransport`.
///
/// Content information comes from `HEAD`, or from `GET bytes=0-1` where `HEAD` is refused or says too little.
/// Redirects are followed here, whatever the transport (at most 10 hops, each asking for the same bytes;
/// `Authorization` and `Cookie` only to the resource's own host), and the final URL is remembered for the
/// next range requests of the same resource. A host that answers `429` or `503` with `Retry-After` gets no
/// request until then, and after a `429` no more requests a second than it took before it refused
/// (`HostPacing`); a request that would wait longer than 2 s for its turn fails with the host's status instead.
public final class HTTPOrigin: Origin {
    private let transport: any HTTPTransport
    private let modifier: RequestModifier?
    private let timeout: TimeInterval
    private let finalURLs = LockedBox<[URL: URL]>([:])
    /// What each host said about how often it may be asked (`429`, `503`, `Retry-After`).
    let pacing = HostPacing()
    /// A body not worth reading is still read up to this size rather than dropped: a transfer that ends
    /// leaves its connection open for the next request, one cancelled closes it.
    private static let drainLimit = 64 * 1024

    /// An origin sending requests through a session made from `configuration`, each changed by `modifier`.
    /// `timeout` bounds the wait for the next byte of a response, not its whole duration.
    public convenience init(
        configuration: URLSessionConfiguration = .default,
        modifier: RequestModifier? = nil,
        timeout: TimeInterval = 30
    ) {
        let configuration = configuration
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        // FoundationNetworking waits for the session's idle timeout, not the request's: set both.
        configuration.timeoutIntervalForRequest = timeout
        // The default (6 on macOS, 4 on iOS) makes a player's request queue behind a few downloads' and
        // preloads' over HTTP/1.1, waiting for a connection rather than the link. HTTP/2 shares one anyway.
        configuration.httpMaximumConnectionsPerHost = max(configuration.httpMaximumConnectionsPerHost, 16)
        self.init(transport: URLSessionTransport(configuration: configuration), modifier: modifier, timeout: timeout)
    }

    /// An origin sending requests through `transport`, each changed by `modifier`. `timeout` (the requests'
    /// `timeoutInterval`) bounds the wait for the next byte of a response, not its whole duration.
    public init(transport: any HTTPTransport, modifier: RequestModifier? = nil, timeout: TimeInterval = 30) {
        self.transport = transport
        self.modifier = modifier
        self.timeout = timeout
    }

    /// An origin over the same transport for a rehearsal against a server of the package's own (the proxy's
    /// ping, `SpoolCache.rehearseColdRead`): without the request modifier, which may add the app's credentials,
    /// and asking the server to close each connection, which then holds no place in the transport's pool
    /// (URLSession on Apple's platforms may keep it anyway: the proxy closes idle connections, and evicts the
    /// idlest when it needs room). A rehearsal that fails (App Transport Security refusing plain HTTP to an IP
    /// address, say) changes nothing.
    package var rehearsal: HTTPOrigin {
        HTTPOrigin(
            transport: transport, modifier: Self.settingHeaders(["Connection": "close"]), timeout: min(timeout, 5))
    }

    public func contentInfo(for url: URL) async throws -> ContentInfo {
        try Self.checkScheme(of: url)
        let (head, body) = try await send(url: url, method: "HEAD", range: nil, validator: nil)
        await Self.drain(body)
        switch head.status {
        case 200..<300:
            // Only a head that gives a length and advertises ranges is enough; otherwise the probe tells.
            if let length = head.contentLength, head.advertisesRanges == true {
                return head.contentInfo(length: length, acceptsRanges: true, requested: url)
            }
        case 404, 410:
            throw head.refusal
        default:
            break  // HEAD refused (405, 501, 403 on signed URLs): fall back to the probe.
        }
        return try await probe(url)
    }

    /// HTTP answers a range that runs past the end with the bytes there are, and says the total length in
    /// `Content-Range`: the first `GET` tells everything a `HEAD` would.
    public var canReadBeforeContentInfo: Bool { true }

    /// As the transport's bodies do (`HTTPTransport.pausesUnreadBodies`): AsyncHTTPClient's stop, and
    /// URLSession's on Apple's platforms (their tasks suspend), not on Linux.
    public var readsPauseWhileUnread: Bool { transport.pausesUnreadBodies }

    public func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
        try Self.checkScheme(of: request.url)
        let (head, body) = try await send(
            url: request.url, method: "GET", range: request.range, validator: request.validator,
            clientData: request.clientData)
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
                offset: range.lowerBound,
                info: head.contentInfo(length: total, acceptsRanges: true, requested: request.url), body: body,
                pausesWhileUnread: transport.pausesUnreadBodies, multiplexed: head.multiplexed,
                initialStreamWindow: transport.initialStreamWindow)
        case 200:
            guard let length = head.contentLength else {
                throw SpoolError.invalidResponse("200 without Content-Length to a range request")
            }
            return OriginReadResponse(
                offset: 0, info: head.contentInfo(length: length, acceptsRanges: false, requested: request.url),
                body: body, pausesWhileUnread: transport.pausesUnreadBodies, multiplexed: head.multiplexed,
                initialStreamWindow: transport.initialStreamWindow)
        case 416:
            await Self.drain(body)
            let length = head.contentRange?.total ?? -1
            throw SpoolError.rangeNotSatisfiable(requested: request.range.lowerBound, length: length)
        default:
            await Self.drain(body)
            throw head.refusal
        }
    }

    /// `GET bytes=0-1`: learns length, type, version and range support from two bytes.
    private func probe(_ url: URL) async throws -> ContentInfo {
        let (head, body) = try await send(url: url, method: "GET", range: 0..<2, validator: nil)
        // Two bytes, or the start of a whole body from a server ignoring the range: cancelled past the limit.
        await Self.drain(body)
        switch head.status {
        case 206:
            guard let total = head.contentRange?.total else {
                throw SpoolError.invalidResponse("206 without the resource's total length")
            }
            return head.contentInfo(length: total, acceptsRanges: true, requested: url)
        case 200:
            guard let length = head.contentLength else {
                throw SpoolError.invalidResponse("the origin reports no length for the resource")
            }
            return head.contentInfo(length: length, acceptsRanges: false, requested: url)
        case 416:
            // Only an empty resource has no bytes 0-1.
            return head.contentInfo(length: head.contentRange?.total ?? 0, acceptsRanges: true, requested: url)
        default:
            throw head.refusal
        }
    }

    /// Sends a request for `url` (or the URL it was last redirected to), following redirects.
    private func send(
        url: URL, method: String, range: Range<Int64>?, validator: String?, clientData: CommonMediaClientData? = nil
    ) async throws -> (head: OriginResponseHead, body: AsyncThrowingStream<Data, any Error>) {
        let remembered = finalURLs.withLock { $0[url] }
        var request = URLRequest(
            url: remembered ?? url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        // Media must arrive byte for byte: a compressed body would not match the ranges.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let range {
            request.setValue("bytes=\(range.lowerBound)-\(range.upperBound - 1)", forHTTPHeaderField: "Range")
            if let validator { request.setValue(validator, forHTTPHeaderField: "If-Range") }
        }
        // Before the modifier, which may change or drop it (it sees the request as it will go).
        clientData?.apply(to: &request)
        if let modifier { try await modifier(&request) }
        // The modifier's credentials are for the resource's host, even when the request goes where that
        // host once redirected it.
        if remembered != nil { HTTPRedirectPolicy.withholdCredentials(from: &request, unlessSentTo: url.host) }
        let firstURL = request.url

        var response = try await sendPaced(request)
        var head = OriginResponseHead(response)
        var hops = 0
        while let next = try HTTPRedirectPolicy.request(following: head, from: request, credentialsHost: url.host) {
            hops += 1
            guard hops <= HTTPRedirectPolicy.maximumHops else {
                throw SpoolError.invalidResponse("more than \(HTTPRedirectPolicy.maximumHops) redirects")
            }
            await Self.drain(response.body)
            request = next
            response = try await sendPaced(request)
            head = OriginResponseHead(response)
        }

        if (200..<300).contains(head.status), head.finalURL != firstURL {
            finalURLs.withLock { $0[url] = head.finalURL }
        } else if remembered != nil, head.status >= 400 {
            // A remembered redirect target that fails (an expired signature) is forgotten: the next
            // request starts again from the original URL.
            _ = finalURLs.withLock { $0.removeValue(forKey: url) }
        }
        return (head, response.body)
    }

    /// Sends `request` when its host's pacing allows (`HostPacing`), and tells the pacing of a refusal.
    private func sendPaced(_ request: URLRequest) async throws -> HTTPTransportResponse {
        guard let url = request.url else { return try await transport.send(request) }
        let sentAt = try await pacing.takeTurn(for: url)
        let response = try await transport.send(request)
        if response.status == 429 || response.status == 503 {
            pacing.refused(
                url, status: response.status, retryAfter: response.value(forHTTPHeaderField: "Retry-After"),
                sentAt: sentAt)
        }
        return response
    }

    /// Reads and discards a body up to `drainLimit`, then lets it go (cancelling whatever is left).
    private static func drain(_ body: AsyncThrowingStream<Data, any Error>) async {
        var received = 0
        do {
            for try await chunk in body {
                received += chunk.count
                if received > drainLimit { return }
            }
        } catch {
            // Nothing of this body was wanted; its failure is nobody's concern.
        }
    }

    private static func checkScheme(of url: URL) throws {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", url.host != nil else {
            throw SpoolError.unsupportedScheme(scheme.isEmpty ? url.absoluteString : scheme)
        }
    }
}
