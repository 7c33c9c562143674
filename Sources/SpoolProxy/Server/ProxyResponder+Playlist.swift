import Foundation
import NIOCore
import NIOHTTP1
import Spool

/// HLS playlists through the proxy: recognised by their content, served with every URI rewritten to a proxy
/// path, and (live ones) never older than half their target duration.
extension ProxyResponder {
    /// The largest resource taken for a playlist: a playlist is read whole and rewritten in memory. Twenty
    /// thousand segments take about 1.2 MB.
    static let maximumPlaylistBytes = HLSWalker.maximumPlaylistBytes

    /// The rewritten playlist `resource` is, or `nil` when it is none (or not one this proxy understands:
    /// then its bytes go out unchanged). A resource is looked at only when its type says HLS, or when it is
    /// small and its first bytes cost no origin request of their own (stored, or the start of `session`, the
    /// request's read, which keeps them for the response). `note` says what the log should know: URIs left
    /// alone, a live playlist served stale.
    func playlist(
        _ resource: Resource, origin: URL, session: ReadSession, note: inout String?
    ) async throws -> HLSPlaylist? {
        let (info, storedBefore) = (session.info, session.storedBefore)
        guard info.length > 0, info.length <= Self.maximumPlaylistBytes else { return nil }
        let key = cache.key(for: resource)
        if let copy = livePlaylists.copy(of: key) {
            return try await livePlaylist(resource, origin: origin, key: key, newest: copy, note: &note)
        }
        if !HLSPlaylist.isPlaylistType(info.mimeType) {
            // Media the origin names as such is no playlist: looking would cost a read of its own before the
            // first byte goes out (a small MP4 in a browser, its every cold request).
            guard !Self.namesMedia(info.mimeType) else { return nil }
            let prefix = 0..<min(info.length, 16)
            let leading: Data
            if session.range.lowerBound == 0, session.range.upperBound >= prefix.upperBound {
                leading = try await session.peek(prefix.count)
            } else if session.range.lowerBound == 0 || storedBefore.contains(prefix) {
                leading = try await cache.data(of: resource, in: prefix, awaitsStoring: false)
            } else {
                return nil
            }
            guard HLSPlaylist.startsPlaylist(leading) else { return nil }
        }
        let data = try await cache.data(of: resource, in: 0..<info.length)
        guard let playlist = rewrite(data, info: info, origin: origin, note: &note) else { return nil }
        guard playlist.isLive else { return playlist }
        // Live: what this request fetched is new; what was stored before it is of unknown age.
        let copy = LivePlaylists.Copy(
            data: data, info: info, fetched: storedBefore.isEmpty ? cache.clock.uptime : 0)
        livePlaylists.keep(copy, for: key)
        guard !storedBefore.isEmpty else { return playlist }
        return try await livePlaylist(resource, origin: origin, key: key, newest: copy, note: &note)
    }

    /// Whether `contentType` is audio, video or an image (`audio/mpeg`, `video/mp4`, `image/jpeg`): types no
    /// server gives a playlist. `application/octet-stream`, `text/plain` and no type at all still get looked at.
    static func namesMedia(_ contentType: String?) -> Bool {
        // Bytes, as `HLSPlaylist.isPlaylistType` reads them: this is asked of every streamed response.
        guard let utf8 = contentType?.utf8 else { return false }
        let start = utf8.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? utf8.endIndex
        // ASCII letters lowercased; the slash and everything else stay as they are.
        let prefix = utf8[start...].prefix(6).map { (65...90).contains($0) ? $0 | 0x20 : $0 }
        return [Array("audio/".utf8), Array("video/".utf8), Array("image/".utf8)].contains(prefix)
    }

    /// A live playlist (or one that was live, and has ended since) from its newest copy, reloaded first when
    /// that is older than half the target duration: the interval of the reloads players make when the last
    /// one brought nothing new. When the origin cannot be reached, the newest copy is served as it is.
    private func livePlaylist(
        _ resource: Resource, origin: URL, key: String, newest: LivePlaylists.Copy, note: inout String?
    ) async throws -> HLSPlaylist? {
        var copy = newest
        guard var playlist = rewrite(copy.data, info: copy.info, origin: origin, note: &note) else { return nil }
        let age = cache.clock.uptime - copy.fetched
        guard playlist.isLive, age > max(0.5, (playlist.targetDuration ?? 2) / 2) else { return playlist }
        do {
            copy = try await livePlaylists.reload(key) { try await fetchLivePlaylist(resource, origin: origin) }
        } catch {
            let old = copy.fetched > 0 ? "\(Int(age.rounded())) s old" : "as stored before this process"
            note = "live playlist served \(old), the origin failed: \(error)"
            return playlist
        }
        note = nil
        guard let reloaded = rewrite(copy.data, info: copy.info, origin: origin, note: &note) else { return nil }
        playlist = reloaded
        return playlist
    }

    /// A live playlist from the origin, past the cache: its stored copy keeps serving readers meanwhile. A
    /// playlist that has ended is stored anew, so that later and offline plays get every segment.
    @Sendable
    private func fetchLivePlaylist(_ resource: Resource, origin: URL) async throws -> LivePlaylists.Copy {
        let (info, data) = try await cache.readPastCache(resource, upTo: Self.maximumPlaylistBytes + 1)
        guard info.length <= Self.maximumPlaylistBytes else {
            throw SpoolError.invalidResponse("a live playlist of \(info.length) bytes")
        }
        guard data.count == info.length else {
            throw SpoolError.invalidResponse("a live playlist cut short at \(data.count) bytes")
        }
        let fetched = cache.clock.uptime
        if let parsed = HLSPlaylist(data, url: origin, map: { _ in nil }), !parsed.isLive {
            await cache.remove(resource)
            if let stored = try? await cache.contentInfo(for: resource), stored.length <= Self.maximumPlaylistBytes,
                let ended = try? await cache.data(of: resource, in: 0..<stored.length)
            {
                return LivePlaylists.Copy(data: ended, info: stored, fetched: fetched)
            }
        }
        return LivePlaylists.Copy(data: data, info: info, fetched: fetched)
    }

    /// `data` rewritten, with relative URIs resolved against the URL that served it. Notes the URIs left alone.
    private func rewrite(_ data: Data, info: ContentInfo, origin: URL, note: inout String?) -> HLSPlaylist? {
        guard let playlist = HLSPlaylist(data, url: info.location ?? origin, mapping: proxyPath) else { return nil }
        let leftAlone = playlist.references.filter {
            !$0.rewritten && (configuration.cachesKeys || !Self.isKey($0.role))
        }
        if !leftAlone.isEmpty {
            // Hosts only: a key's URI may carry a token.
            let hosts = Set(leftAlone.compactMap(\.url.host)).sorted().joined(separator: ", ")
            note = "\(leftAlone.count) URIs left alone, on hosts not allowed: \(hosts)"
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
    /// host the proxy may not reach, and for a key when keys are not to be cached.
    private func proxyPath(for url: URL, role: HLSPlaylist.Reference.Role) -> String? {
        guard let host = url.host, configuration.allows(host: host) else { return nil }
        guard Self.isKey(role) else {
            return (try? ProxyURLMapping.proxyPath(for: url, whole: true, signer: secrets.signer)).map {
                pathScope + $0
            }
        }
        guard configuration.cachesKeys else { return nil }
        return (try? ProxyURLMapping.proxyPath(for: url, key: true, signer: secrets.signer)).map { pathScope + $0 }
    }

    private static func isKey(_ role: HLSPlaylist.Reference.Role) -> Bool {
        role == .key || role == .sessionKey
    }
}
