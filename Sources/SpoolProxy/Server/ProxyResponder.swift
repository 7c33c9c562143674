import Foundation
import NIOCore
import NIOHTTP1
import Spool
import SpoolDownloads

/// Answers one proxy request: maps the path to an origin URL, plans the response from the resource's
/// content information and streams the body from the cache, which fetches what it lacks.
struct ProxyResponder: Sendable {
    let cache: SpoolCache
    let configuration: ProxyConfiguration
    /// What the proxy's URLs, control API and ping prove.
    let secrets: ProxySecrets
    /// The origin URLs of recent request targets, their proofs checked.
    let targets: ProxyTargetMemo
    /// The newest copies of live playlists.
    let livePlaylists = LivePlaylists()
    /// The next segments of the HLS streams being played.
    let readAhead: SegmentReadAhead
    /// The preload API (`/preload`).
    let preload: PreloadControl
    /// The download API (`/downloads`).
    let downloads: DownloadControl
    /// The items being played, with their playback reports.
    let playback: ProxyPlaybackItems
    /// What the paths of rewritten playlists start with: empty on loopback, `/s/<token>` for the local
    /// network's listener, so a receiver fetches every segment with the token too.
    private(set) var pathScope = ""
    /// A responder over `cache` with `secrets` (by default new ones, with `configuration.urlKey`); its preload
    /// API drives `preloader` (by default a new one over `cache`), its download API `downloads` (none by default).
    init(
        cache: SpoolCache, configuration: ProxyConfiguration, secrets: ProxySecrets? = nil,
        preloader: SpoolPreloader? = nil, downloads: DownloadQueue? = nil
    ) {
        self.cache = cache
        self.configuration = configuration
        let secrets = secrets ?? ProxySecrets(urlKey: configuration.urlKey)
        self.secrets = secrets
        targets = ProxyTargetMemo(signer: secrets.signer)
        preload = PreloadControl(
            preloader: preloader ?? SpoolPreloader(cache: cache, configuration: configuration.preload),
            configuration: configuration, signer: secrets.signer)
        self.downloads = DownloadControl(queue: downloads, configuration: configuration, signer: secrets.signer)
        playback = ProxyPlaybackItems(cache: cache, idleInterval: configuration.playbackIdleInterval)
        readAhead = SegmentReadAhead(
            cache: cache,
            window: .init(seconds: configuration.readAheadSeconds, bytes: configuration.readAheadBytes))
    }

    /// The same responder (the same memo, live playlists, read-ahead and preload API) naming `scope` first in
    /// every path it writes.
    func scoped(to scope: String) -> ProxyResponder {
        var scoped = self
        scoped.pathScope = scope
        return scoped
    }

    typealias Writer = ProxyOutbound

    /// Sends the whole response. Throws when the connection must close: the client went away, or the body
    /// broke off after its head was sent (the client then sees a short body, never wrong bytes). `pace`
    /// holds back the origin requests of a "to the end" body that ran ahead of the client.
    /// `body` is the request's body, for the methods that carry one (the preload API's `PUT`).
    func respond(
        to head: HTTPRequestHead, body: [UInt8] = [], keepAlive: Bool, writer: Writer, pace: ClientPace? = nil
    ) async throws {
        var record = ProxyLogRecord(
            method: head.method.rawValue, target: "(not a proxy path)", range: head.headers.first(name: "range"),
            status: 0, bodyBytes: 0, failure: nil)
        defer { configuration.log?(record) }
        do {
            if try await answerControl(head, body: body, keepAlive: keepAlive, writer: writer, record: &record) {
                return
            }
            let isHead: Bool
            switch head.method {
            case .GET: isHead = false
            case .HEAD: isHead = true
            default:
                throw FailureResponse(
                    status: 405, reason: "only GET and HEAD", headers: [HeaderField("Allow", "GET, HEAD")])
            }
            if let field = Self.repeatedSingleField(head) {
                throw FailureResponse(status: 400, reason: "the \(field) field appears more than once")
            }
            let mapping = try originMapping(of: head)
            record.target = mapping.displayURL
            try await stream(
                Resource(url: mapping.origin), origin: mapping.origin, for: head, isHead: isHead,
                keepAlive: keepAlive, writer: writer, pace: pace, record: &record)
        } catch let failure as FailureResponse {
            try await send(failure, to: head, keepAlive: keepAlive, writer: writer, record: &record)
        } catch {
            record.failure = "\(error)"
            throw error
        }
    }

    /// Sends a response whose body is in memory, in one write: the head (`fields` and the connection's
    /// fields), then the body unless `isHead`. Returns the body bytes sent.
    func sendWhole(
        _ body: ByteBuffer, status: Int, fields: [HeaderField], head: HTTPRequestHead, isHead: Bool,
        keepAlive: Bool, writer: Writer
    ) async throws -> Int64 {
        let responseHead = responseHead(
            head, status: status, fields: fields + connectionFields(head: head, keepAlive: keepAlive))
        try await writer.write(
            contentsOf: isHead
                ? [.head(responseHead), .end(nil)]
                : [.head(responseHead), .body(.byteBuffer(body)), .end(nil)])
        return isHead ? 0 : Int64(body.readableBytes)
    }

    private func originMapping(of head: HTTPRequestHead) throws -> ProxyTargetMemo.Mapping {
        let mapping: ProxyTargetMemo.Mapping
        do {
            mapping = try targets.mapping(of: head.uri)
        } catch let error as ProxyURLError {
            // Refused before anything is read or fetched: a URL this proxy did not make is not served.
            throw FailureResponse(status: error == .forged ? 403 : 400, reason: error.description)
        }
        guard let host = mapping.origin.host, configuration.allows(host: host) else {
            throw FailureResponse(status: 403, reason: "origin host not allowed")
        }
        return mapping
    }

    private func stream(
        _ resource: Resource, origin: URL, for head: HTTPRequestHead, isHead: Bool, keepAlive: Bool,
        writer: Writer, pace: ClientPace?, record: inout ProxyLogRecord
    ) async throws {
        // What a rewritten playlist names (`/w/…`) is read whole: one origin request, no pacing.
        let extent: ReadExtent = ProxyURLMapping.asksForWhole(head.uri) ? .whole : .mayStopEarly
        let pace = extent == .whole ? nil : pace
        // A segment a playlist named: what follows it in its playlist is read ahead of the player, once the
        // player's read has this one (the read-ahead starts with it). Told now, before anything can fail or the
        // player hang up: a player leaves as soon as it has the bytes, which can cancel this task before its end.
        if extent == .whole, !isHead { readAhead.played(origin, range: Self.firstRead(head)) }
        // The first range's read session brings the content information and what was stored before anything
        // was asked of the origin; asking for the content information brings the first bytes too.
        let wanted = isHead ? 0..<1 : Self.firstRead(head) ?? 0..<Int64.max
        // A GET is a player's request for its item's playback report; a HEAD serves nothing.
        let ticket = isHead ? nil : playback.begin(origin: origin, key: cache.key(for: resource))
        defer { if let ticket { playback.end(ticket) } }
        // The player's CMCD goes with the origin requests that serve it.
        let clientData = Self.clientData(of: head)
        ticket?.request.playerSent(clientData)
        let session: ReadSession
        do {
            // A player asks: waiting for the origin's first answer, it is a start that preloads give way to.
            session = try await cache.openRead(
                resource, from: wanted.lowerBound,
                length: wanted.upperBound == .max ? nil : wanted.upperBound - wanted.lowerBound,
                purpose: .playback(isHead ? .mayStopEarly : extent), clientData: clientData)
        } catch {
            throw FailureResponse(error: error)
        }
        session.playback = ticket?.request
        let (info, storedBefore) = (session.info, session.storedBefore)
        let playlist: HLSPlaylist?
        do {
            playlist = try await self.playlist(
                resource, origin: origin, session: session, note: &record.note)
        } catch {
            throw FailureResponse(error: error)
        }
        if let playlist {
            playback.named(by: playlist, at: origin)
            if playlist.references.contains(where: { $0.role == .variant }) {
                readAhead.learnMaster(playlist, url: origin)
            } else {
                readAhead.learn(playlist, url: origin)
            }
            record.status = 200
            record.bodyBytes = try await send(
                playlist, info: info, head: head, isHead: isHead, keepAlive: keepAlive, writer: writer)
            return
        }
        let plan = ResponsePlan(for: Self.planRequest(head), info: info, boundary: Self.makeBoundary())
        let ranges = plan.body.ranges.filter { !$0.isEmpty }
        let state = cacheState(stored: storedBefore, ranges: ranges)

        // The first chunk is read before the head goes out, so that an origin failing right away becomes its
        // status (or a 502 or 504) instead of a 200 with a broken body.
        var firstSession: ReadSession?
        var firstPart: StreamPart?
        if !isHead, let first = ranges.first {
            do {
                let reading =
                    session.range == first
                    ? session
                    : try await openRead(
                        resource, first, extent: extent, for: ticket?.request, clientData: clientData)
                paced(reading, pace)
                firstPart = try await reading.nextPart(revoke: writer.revokeSlice)
                firstSession = reading
            } catch {
                throw FailureResponse(error: error)
            }
        }
        // From here every slice is the ledger's, released when sent or when the connection closes.
        let firstBody = try firstPart.map(writer.body)

        record.status = plan.status
        let responseHead = responseHead(head, plan: plan, cacheState: state, keepAlive: keepAlive)
        if isHead {
            try await writer.write(contentsOf: [.head(responseHead), .end(nil)])
            return
        }
        if let body = firstBody, ranges.count == 1, plan.contentLength == Int64(body.readableBytes) {
            // The whole body came in the first part (most small ranges): head, body and end in one write.
            try await writer.write(contentsOf: [.head(responseHead), .body(body), .end(nil)])
            ticket?.request.mediaStarted()
            record.bodyBytes = Int64(body.readableBytes)
            return
        }
        try await writer.write(.head(responseHead))
        // The player's view of the start: its response's first bytes are on their way to it.
        if firstBody != nil { ticket?.request.mediaStarted() }

        let partHeaders: [String]
        let closing: String?
        switch plan.body {
        case .multipart(let parts, let close): (partHeaders, closing) = (parts.map(\.header), close)
        default: (partHeaders, closing) = ([], nil)
        }
        for (index, range) in ranges.enumerated() {
            if index < partHeaders.count {
                try await writer.write(.body(.byteBuffer(ByteBuffer(string: partHeaders[index]))))
            }
            let before = record.bodyBytes
            let reading: ReadSession
            if index == 0, let first = firstSession {
                reading = first
                firstSession = nil
                if let firstBody {
                    try await writer.writeBody(firstBody)
                    record.bodyBytes += Int64(firstBody.readableBytes)
                }
            } else {
                reading = try await openRead(
                    resource, range, extent: extent, for: ticket?.request, clientData: clientData)
                paced(reading, pace)
            }
            while let part = try await reading.nextPart(revoke: writer.revokeSlice) {
                try await writer.writeBody(part)
                record.bodyBytes += Int64(part.count)
            }
            let sent = record.bodyBytes - before
            guard sent == range.count64 else { throw ProxyStreamError.shortRead(expected: range.count64, sent: sent) }
        }
        if let closing { try await writer.write(.body(.byteBuffer(ByteBuffer(string: closing)))) }
        try await writer.write(.end(nil))
    }

    /// A player's read of `range`, for its `request` (of a playback report), with its CMCD.
    private func openRead(
        _ resource: Resource, _ range: Range<Int64>, extent: ReadExtent, for request: PlaybackRequest?,
        clientData: CommonMediaClientData?
    ) async throws -> ReadSession {
        let session = try await cache.openRead(
            resource, from: range.lowerBound, length: range.count64, purpose: .playback(extent),
            clientData: clientData)
        session.playback = request
        return session
    }

    /// Paces `session` by the client when it runs to the end of the resource: that is what a player asks
    /// for and then abandons, so its origin requests wait for the client to keep up (see `ClientPace`); a
    /// bounded range is wanted whole.
    private func paced(_ session: ReadSession, _ pace: ClientPace?) {
        guard let pace, session.range.upperBound == session.info.length else { return }
        session.consumer = { try await pace.caughtUp() }
    }

    /// `hit` when every requested byte is in `stored`, `miss` when none is, `partial` otherwise.
    private func cacheState(stored: ByteRangeSet, ranges: [Range<Int64>]) -> String? {
        let wanted = ranges.reduce(Int64(0)) { $0 + $1.count64 }
        guard wanted > 0 else { return nil }
        let held = ranges.reduce(Int64(0)) { total, range in
            total + stored.intersection(range).reduce(0) { $0 + $1.count64 }
        }
        return held == wanted ? "hit" : held == 0 ? "miss" : "partial"
    }
}

/// A body that ended before the bytes its head announced.
enum ProxyStreamError: Error {
    case shortRead(expected: Int64, sent: Int64)
}
