import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// HLS playlists through the proxy: recognised by their content, served with every URI rewritten to a proxy
/// path, and (live ones) never older than half their target duration.
extension ProxyResponder {
    /// The largest resource taken for a playlist: a playlist is read whole and rewritten in memory. Twenty
    /// thousand segments take about 1.2 MB.
    static let maximumPlaylistBytes: Int64 = 8 << 20

    /// The rewritten playlist `resource` is, or `nil` when it is none (or not one this proxy understands:
    /// then its bytes go out unchanged). A resource is looked at only when its type says HLS, or when it is
    /// small and its first bytes cost no origin request of their own (stored, or the start of the request).
    func playlist(
        _ resource: Resource, origin: URL, info: ContentInfo, head: HTTPRequestHead, storedBefore: ByteRangeSet
    ) async throws -> HLSPlaylist? {
        guard info.length > 0, info.length <= Self.maximumPlaylistBytes else { return nil }
        if !HLSPlaylist.isPlaylistType(info.mimeType) {
            let prefix = 0..<min(info.length, 16)
            let start = Self.firstRead(head)?.lowerBound ?? 0
            guard start == 0 || storedBefore.contains(prefix),
                HLSPlaylist.startsPlaylist(try await readAll(resource, prefix))
            else { return nil }
        }
        let key = cache.key(for: resource)
        var data = try await readAll(resource, 0..<info.length)
        guard var playlist = HLSPlaylist(data, url: origin, map: proxyPath) else { return nil }
        guard playlist.isLive else { return playlist }
        // Live: the origin keeps adding segments. What was stored before this request is used only while it is
        // younger than half the target duration (the interval of the player's reloads that find nothing new).
        let now = ProcessInfo.processInfo.systemUptime
        let maximumAge = max(0.5, (playlist.targetDuration ?? 2) / 2)
        if storedBefore.isEmpty {
            livePlaylists.fetched(key, at: now)
        } else if let fetched = livePlaylists.fetchTime(of: key), now - fetched <= maximumAge {
            return playlist
        } else {
            cache.remove(resource)
            let fresh = try await cache.contentInfo(for: resource)
            guard fresh.length <= Self.maximumPlaylistBytes else { return nil }
            data = try await readAll(resource, 0..<fresh.length)
            livePlaylists.fetched(key, at: now)
            guard let reloaded = HLSPlaylist(data, url: origin, map: proxyPath) else { return nil }
            playlist = reloaded
        }
        return playlist
    }

    /// Sends `playlist` whole, as `200` (a range of a rewritten playlist would name bytes the origin never
    /// sent; RFC 9110 lets a server ignore `Range`). Returns the body bytes sent.
    func send(
        _ playlist: HLSPlaylist, info: ContentInfo, head: HTTPRequestHead, isHead: Bool, keepAlive: Bool,
        writer: Writer
    ) async throws -> Int64 {
        var fields = [
            HeaderField("Content-Type", info.mimeType ?? "application/vnd.apple.mpegurl"),
            HeaderField("Content-Length", "\(playlist.data.count)"),
        ]
        // A live playlist changes at the origin: a player or a cache between must ask again each time.
        if playlist.isLive { fields.append(HeaderField("Cache-Control", "no-cache")) }
        return try await sendWhole(
            ByteBuffer(bytes: playlist.data), status: 200, fields: fields, head: head, isHead: isHead,
            keepAlive: keepAlive, writer: writer)
    }

    /// The proxy path a playlist names instead of `url`; `nil` (the URI stays as the origin wrote it) for a
    /// host the proxy may not reach.
    private func proxyPath(for url: URL) -> String? {
        guard let host = url.host, configuration.allows(host: host) else { return nil }
        return try? ProxyURLMapping.proxyPath(for: url, whole: true)
    }

    private func readAll(_ resource: Resource, _ range: Range<Int64>) async throws -> Data {
        let length = range.upperBound - range.lowerBound
        var data = Data()
        data.reserveCapacity(Int(length))
        for try await chunk in cache.read(resource, from: range.lowerBound, length: length, extent: .whole) {
            data.append(chunk)
        }
        return data
    }
}
