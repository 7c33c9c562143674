import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// Requests answered at once from stored bytes, on the event loop (`StoredHitHandler`).
extension ProxyResponder {
    /// What a request target maps to, for answering hits on it: kept by a connection for its last target,
    /// since a player asks for the same URL again and again, so that a hit looks nothing up in a shared map.
    struct HitTarget: Sendable {
        /// The request target it was made for.
        let uri: String
        let mapping: ProxyTargetMemo.Mapping
        /// The cache key of the origin URL.
        let key: String
        /// Whether the target is one a playlist names (a segment, a key), read whole.
        let asksForWhole: Bool
    }

    /// The target of `uri`, when it names an origin this proxy may serve; `nil` otherwise (the connection's
    /// task answers such requests, with their errors).
    func hitTarget(for uri: String) -> HitTarget? {
        guard uri != SpoolProxy.pingPath, let mapping = try? targets.mapping(of: uri),
            let host = mapping.origin.host, configuration.allows(host: host)
        else { return nil }
        return HitTarget(
            uri: uri, mapping: mapping, key: cache.key(for: Resource(url: mapping.origin)),
            asksForWhole: ProxyURLMapping.asksForWhole(uri))
    }

    /// The whole response to `head` when it can be sent at once from stored bytes this process has checked:
    /// a GET on a keep-alive HTTP/1.1 connection of one range (or the whole resource) of at most
    /// `FetchPolicy.fileSliceSize` bytes, all on disk. Its body is one file region (`sendfile`), lent by the
    /// cache without a read or a task. `nil` for anything else, which `respond` answers; so nothing that
    /// fails is answered here.
    func storedHit(to head: HTTPRequestHead, slices: UnsentSlices, revoke: @escaping @Sendable () -> Void)
        -> StoredHit?
    {
        guard let target = hitTarget(for: head.uri) else { return nil }
        return storedHit(to: head, target: target, slices: slices, revoke: revoke)
    }

    /// `storedHit` for a request on `target` (made by `hitTarget(for:)` for `head.uri`).
    func storedHit(
        to head: HTTPRequestHead, target: HitTarget, slices: UnsentSlices, revoke: @escaping @Sendable () -> Void
    ) -> StoredHit? {
        guard head.method == .GET, head.version == .http1_1, head.isKeepAlive, head.uri == target.uri,
            Self.repeatedSingleField(head) == nil
        else { return nil }
        let request = Self.planRequest(head)
        var plan: ResponsePlan?
        let lent = cache.lendStored(key: target.key, revoke: revoke) { info in
            // Playlists are rewritten, so never sent from the file as they are.
            guard !HLSPlaylist.isPlaylistType(info.mimeType) else { return nil }
            let planned = ResponsePlan(for: request, info: info, boundary: Self.makeBoundary())
            guard case .bytes(let range) = planned.body else { return nil }
            plan = planned
            return range
        }
        guard let (info, slice, fresh, leadingBytes) = lent, let plan else { return nil }
        // A small file may be a playlist unless its type names media (as the task's path judges it): only its
        // first bytes tell. They come from memory, never from a read on the event loop: unknown, the task's path
        // answers (its read of them teaches the engine for the next hit).
        if info.length <= Self.maximumPlaylistBytes, !Self.namesMedia(info.mimeType),
            leadingBytes.map(HLSPlaylist.startsPlaylist) ?? true
        {
            _ = close(slice.descriptor)
            slice.release()
            return nil
        }
        // Throws only when the connection has closed (the slice is released then): the usual path says so.
        guard let region = try? slices.region(for: slice) else { return nil }
        if target.asksForWhole { readAhead.played(target.mapping.origin, range: Self.firstRead(head)) }
        let ticket = playback.begin(origin: target.mapping.origin, key: target.key)
        ticket.request.playerSent(Self.clientData(of: head))
        ticket.request.served(key: target.key, range: slice.offset..<slice.offset + Int64(slice.count), fresh: fresh)
        ticket.request.mediaStarted()
        playback.end(ticket)
        let record = ProxyLogRecord(
            method: head.method.rawValue, target: target.mapping.displayURL, range: request.range,
            status: plan.status, bodyBytes: Int64(slice.count), failure: nil)
        let responseHead = responseHead(head, plan: plan, cacheState: "hit", keepAlive: true)
        return StoredHit(parts: [.head(responseHead), .body(.fileRegion(region)), .end(nil)], record: record)
    }

    /// A response sent whole at once (`storedHit`), and its log record.
    struct StoredHit {
        let parts: [HTTPServerResponsePart]
        let record: ProxyLogRecord
    }
}
