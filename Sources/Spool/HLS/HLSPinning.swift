import Foundation

/// Pins what playing an HLS stream needs, for offline play: the playlists, and the keys, initialization
/// sections and segments of the chosen variants and of the renditions they name, each under the cache key
/// its URL has (the one a proxy or player reading the stream uses).
///
/// ```swift
/// let pinning = HLSPinning(cache: cache)
/// let summary = try await pinning.pin(masterURL, variants: .bandwidth(atMost: 3_000_000)) { progress in
///     print("\(progress.pinned) of \(progress.total)")
/// }
/// ```
public struct HLSPinning: Sendable {
    /// How far a download has come.
    public struct Progress: Sendable, Equatable {
        /// Resources pinned so far (playlists, keys, sections, segments).
        public var pinned: Int
        /// Resources to pin, as far as the playlists read so far tell.
        public var total: Int
        /// Bytes of the pinned resources.
        public var bytes: Int64
    }

    /// What a download pinned.
    public struct Summary: Sendable, Equatable {
        /// The media playlists pinned: the chosen variants and their renditions (or the playlist itself when it
        /// is a media playlist).
        public var mediaPlaylists: [URL]
        /// Every resource pinned, playlists included, in the order pinned.
        public var resources: [URL]
        /// Their bytes.
        public var bytes: Int64
    }

    /// Why a stream cannot be pinned.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The resource is no HLS playlist.
        case notAPlaylist(URL)
        /// A live playlist: its segments are not all there yet.
        case live(URL)
        /// A playlist larger than `maximumPlaylistBytes`.
        case tooLarge(URL, Int64)

        /// A readable explanation.
        public var description: String {
            switch self {
            case .notAPlaylist(let url): "not an HLS playlist: \(CacheKeyPolicy.displayURL(for: url))"
            case .live(let url): "a live stream cannot be pinned before it ends: \(CacheKeyPolicy.displayURL(for: url))"
            case .tooLarge(let url, let length):
                "a playlist of \(length) bytes is too large: \(CacheKeyPolicy.displayURL(for: url))"
            }
        }
    }

    /// The largest playlist read.
    package static let maximumPlaylistBytes: Int64 = 8 << 20

    /// The cache pinned into.
    public let cache: SpoolCache

    /// Pins streams into `cache`.
    public init(cache: SpoolCache) {
        self.cache = cache
    }

    /// Whether the resource at `url` is an HLS playlist, by its type or its first bytes (which this caches).
    public func isPlaylist(_ url: URL) async throws -> Bool {
        let info = try await cache.contentInfo(for: Resource(url: url))
        if HLSPlaylist.isPlaylistType(info.mimeType) { return true }
        guard info.length > 0, info.length <= Self.maximumPlaylistBytes else { return false }
        return HLSPlaylist.startsPlaylist(try await cache.data(of: Resource(url: url), in: 0..<min(info.length, 16)))
    }

    /// Pins the stream whose master or media playlist is at `url`: of a master, the `variants` chosen and the
    /// renditions they name. Resources are pinned one after another, each giving way to playback reads.
    /// On failure what was pinned stays pinned, so that pinning again completes the download.
    public func pin(
        _ url: URL, variants: HLSVariantChoice = .highest, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        var run = Run(progress: progress)
        let top = try await playlist(at: url, run: &run)
        let chosen = variants.pick(from: top.references.filter { $0.role == .variant })
        // A media playlist: pinned with what it names already.
        guard !chosen.isEmpty else {
            return Summary(mediaPlaylists: [url], resources: run.pinned, bytes: run.bytes)
        }
        // The renditions of the groups the chosen variants name (audio, subtitles; closed captions have no URI).
        let groups = Set(chosen.flatMap { [$0.attributes["AUDIO"], $0.attributes["SUBTITLES"]].compactMap { $0 } })
        let renditions = top.references.filter {
            $0.role == .rendition && groups.contains($0.attributes["GROUP-ID"] ?? "")
        }
        let media = Self.unique((chosen + renditions).map(\.url))
        run.plan(top.references.filter { $0.role == .sessionKey }.map(\.url))
        try await run.pinPlanned(in: self)
        for mediaURL in media {
            _ = try await playlist(at: mediaURL, run: &run)
        }
        return Summary(mediaPlaylists: media, resources: run.pinned, bytes: run.bytes)
    }

    /// The resources a pinned stream holds, as its stored playlists name them (no origin request): the playlist
    /// at `url`, and, for a master, the `variants` chosen and their renditions, then every key, initialization
    /// section and segment of each. What a download of the stream removes.
    package func storedResources(_ url: URL, variants: HLSVariantChoice) async -> [URL] {
        var urls = [url]
        if let top = await storedPlaylist(url) {
            let chosen = variants.pick(from: top.references.filter { $0.role == .variant })
            let groups = Set(chosen.flatMap { [$0.attributes["AUDIO"], $0.attributes["SUBTITLES"]].compactMap { $0 } })
            let renditions = top.references.filter {
                $0.role == .rendition && groups.contains($0.attributes["GROUP-ID"] ?? "")
            }
            let media = chosen.isEmpty ? [] : Self.unique((chosen + renditions).map(\.url))
            urls += top.references.filter { [.sessionKey, .key, .initSection, .segment].contains($0.role) }.map(\.url)
            for mediaURL in media {
                urls.append(mediaURL)
                guard let playlist = await storedPlaylist(mediaURL) else { continue }
                urls += playlist.references.filter { [.key, .initSection, .segment].contains($0.role) }.map(\.url)
            }
        }
        return Self.unique(urls)
    }

    /// The playlist at `url` if the cache holds it whole; `nil` otherwise.
    private func storedPlaylist(_ url: URL) async -> HLSPlaylist? {
        let resource = Resource(url: url)
        guard let entry = await cache.entry(for: resource), entry.info.length <= Self.maximumPlaylistBytes,
            entry.cachedRanges.gaps(in: 0..<entry.info.length).isEmpty,
            let data = try? await cache.data(of: resource, in: 0..<entry.info.length)
        else { return nil }
        return HLSPlaylist(data, url: entry.info.location ?? url, map: { _ in nil })
    }

    /// Pins the playlist at `url`, then (for a media playlist) what it names; returns it.
    private func playlist(at url: URL, run: inout Run) async throws -> HLSPlaylist {
        var playlist = try await readPlaylist(url)
        if playlist.isLive {
            // A copy stored while the stream was live: the stream may have ended since.
            await cache.remove(Resource(url: url))
            playlist = try await readPlaylist(url)
            guard !playlist.isLive else { throw Failure.live(url) }
        }
        run.plan([url])
        run.plan(
            playlist.references.filter { [.key, .initSection, .segment].contains($0.role) }.map(\.url)
        )
        try await run.pinPlanned(in: self)
        return playlist
    }

    private func readPlaylist(_ url: URL) async throws -> HLSPlaylist {
        let resource = Resource(url: url)
        let info = try await cache.contentInfo(for: resource, extent: .whole)
        guard info.length <= Self.maximumPlaylistBytes else { throw Failure.tooLarge(url, info.length) }
        let data = try await cache.data(of: resource, in: 0..<info.length)
        guard let playlist = HLSPlaylist(data, url: info.location ?? url, map: { _ in nil }) else {
            throw Failure.notAPlaylist(url)
        }
        return playlist
    }

    fileprivate func pinOne(_ url: URL) async throws -> Int64 {
        let resource = Resource(url: url)
        try await cache.pin(resource)
        return try await cache.contentInfo(for: resource).length
    }

    private static func unique(_ urls: [URL]) -> [URL] {
        var seen = Set<URL>()
        return urls.filter { seen.insert($0).inserted }
    }

    /// The resources planned and pinned so far, each once (a single-file stream names its file per segment).
    private struct Run {
        let progress: @Sendable (Progress) -> Void
        var planned: [URL] = []
        var known = Set<URL>()
        var pinned: [URL] = []
        var bytes: Int64 = 0

        mutating func plan(_ urls: [URL]) {
            for url in urls where known.insert(url).inserted { planned.append(url) }
        }

        mutating func pinPlanned(in pinning: HLSPinning) async throws {
            while pinned.count < planned.count {
                let url = planned[pinned.count]
                bytes += try await pinning.pinOne(url)
                pinned.append(url)
                progress(Progress(pinned: pinned.count, total: planned.count, bytes: bytes))
            }
        }
    }
}
