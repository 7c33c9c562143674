import Foundation
import Spool

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
        /// A playlist larger than 8 MiB.
        case tooLarge(URL, Int64)

        /// A readable explanation.
        public var description: String {
            switch self {
            case .notAPlaylist(let url): HLSWalker.Refusal.notAPlaylist(url).description
            case .live(let url): "a live stream cannot be pinned before it ends: \(CacheKeyPolicy.displayURL(for: url))"
            case .tooLarge(let url, let length): HLSWalker.Refusal.tooLarge(url, length).description
            }
        }

        init(_ refusal: HLSWalker.Refusal) {
            switch refusal {
            case .notAPlaylist(let url): self = .notAPlaylist(url)
            case .tooLarge(let url, let length): self = .tooLarge(url, length)
            }
        }
    }

    /// The cache pinned into.
    public let cache: SpoolCache
    /// Where its transfers go: downloads, under the conditions the caller gave (none for an app's own pin).
    private let walker: HLSWalker

    /// Pins streams into `cache`.
    public init(cache: SpoolCache) {
        self.init(client: TransferClient(cache: cache, purpose: .download))
    }

    /// Pins streams through `client`: a download queue's, under its conditions.
    package init(client: TransferClient) {
        cache = client.cache
        walker = HLSWalker(client: client)
    }

    /// Whether the resource at `url` is an HLS playlist, by its type or its first bytes (which this caches).
    public func isPlaylist(_ url: URL) async throws -> Bool {
        // Asked now, by someone waiting for the answer: a prefetch, which fails at once when the origin
        // cannot be reached (a download would wait for it).
        let client = TransferClient(cache: cache, purpose: .prefetch)
        let (info, prefix) = try await client.data(Resource(url: url), TransferSpan(start: 0, end: 16))
        if HLSPlaylist.isPlaylistType(info.mimeType) { return true }
        return info.length <= HLSWalker.maximumPlaylistBytes && HLSPlaylist.startsPlaylist(prefix)
    }

    /// `isPlaylist`, or, when the origin cannot be reached (refused, no answer), what the URL's name says
    /// (`HLSPlaylist.namesPlaylist`): a download queued offline waits for its origin instead of failing.
    package func isPlaylistOrNamedOne(_ url: URL) async throws -> Bool {
        do {
            return try await isPlaylist(url)
        } catch SpoolError.network, SpoolError.timedOut {
            return HLSPlaylist.namesPlaylist(url)
        }
    }

    /// Pins the stream whose master or media playlist is at `url`: of a master, the `variants` chosen and the
    /// renditions they name. Resources are pinned one after another, each giving way to playback reads (and
    /// to the player's read-ahead, prefetches and preloads: pins are downloads to the transfer scheduler).
    /// On failure what was pinned stays pinned, so that pinning again completes the download.
    public func pin(
        _ url: URL, variants: HLSVariantChoice = .highest, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Summary {
        try await pin(url, variants: variants, progress: progress, waiting: { _ in })
    }

    /// `pin`, telling `waiting` what its transfers wait for (the device's conditions of a download queue).
    package func pin(
        _ url: URL, variants: HLSVariantChoice, progress: @escaping @Sendable (Progress) -> Void,
        waiting: @escaping @Sendable ([TransferBlocker]) -> Void
    ) async throws -> Summary {
        var run = Run(progress: progress, waiting: waiting)
        let top = try await playlist(at: url, run: &run)
        let media = HLSWalker.media(of: top, variants: variants, renditions: .all).map(\.url)
        // A media playlist: pinned with what it names already.
        guard !media.isEmpty else {
            return Summary(mediaPlaylists: [url], resources: run.pinned, bytes: run.bytes)
        }
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
            urls += HLSWalker.contents(of: top).map(\.url)
            for media in HLSWalker.media(of: top, variants: variants, renditions: .all) {
                urls.append(media.url)
                guard let playlist = await storedPlaylist(media.url) else { continue }
                urls += HLSWalker.contents(of: playlist).map(\.url)
            }
        }
        return Self.unique(urls)
    }

    /// The playlist at `url` if the cache holds it whole; `nil` otherwise.
    private func storedPlaylist(_ url: URL) async -> HLSPlaylist? {
        let resource = Resource(url: url)
        guard let entry = await cache.entry(for: resource), entry.info.length <= HLSWalker.maximumPlaylistBytes,
            entry.cachedRanges.gaps(in: 0..<entry.info.length).isEmpty,
            let data = try? await cache.data(of: resource, in: 0..<entry.info.length)
        else { return nil }
        return HLSPlaylist(data, url: entry.info.location ?? url, map: { _ in nil })
    }

    /// Pins the playlist at `url`, then what it names (of a master, its session keys); returns it.
    private func playlist(at url: URL, run: inout Run) async throws -> HLSPlaylist {
        let resource = Resource(url: url)
        var playlist = try await read(resource, waiting: run.waiting)
        if playlist.isLive {
            // A copy stored while the stream was live: the stream may have ended since.
            await cache.remove(resource)
            playlist = try await read(resource, waiting: run.waiting)
            guard !playlist.isLive else { throw Failure.live(url) }
        }
        run.plan([url])
        run.plan(HLSWalker.contents(of: playlist).map(\.url))
        try await run.pinPlanned(in: self)
        return playlist
    }

    /// The playlist of `resource` (see `HLSWalker.playlist`), or why it is none as this type's failure.
    private func read(_ resource: Resource, waiting: @escaping @Sendable ([TransferBlocker]) -> Void) async throws
        -> HLSPlaylist
    {
        do {
            return try await walker.playlist(resource, waiting: waiting)
        } catch let refusal as HLSWalker.Refusal {
            throw Failure(refusal)
        }
    }

    /// Pins the resource at `url` and stores all of it; returns its bytes.
    fileprivate func pinOne(_ url: URL, waiting: @escaping @Sendable ([TransferBlocker]) -> Void) async throws -> Int64
    {
        let stored = try await cache.pin(Resource(url: url), through: walker.client, waiting: waiting)
        return stored.upperBound - stored.lowerBound
    }

    private static func unique(_ urls: [URL]) -> [URL] {
        var seen = Set<URL>()
        return urls.filter { seen.insert($0).inserted }
    }

    /// The resources planned and pinned so far, each once (a single-file stream names its file per segment).
    private struct Run {
        let progress: @Sendable (Progress) -> Void
        let waiting: @Sendable ([TransferBlocker]) -> Void
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
                bytes += try await pinning.pinOne(url, waiting: waiting)
                pinned.append(url)
                progress(Progress(pinned: pinned.count, total: planned.count, bytes: bytes))
            }
        }
    }
}
