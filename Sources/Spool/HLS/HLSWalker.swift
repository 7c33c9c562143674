import Foundation

/// Walks an HLS stream for every feature that reads one ahead of a player (pinning, downloads, preloading, the
/// proxy's read-ahead): reads its playlists through the transfer scheduler, and tells which media playlists of
/// a master a player plays and what each media playlist names, in the order a player needs it.
package struct HLSWalker: Sendable {
    /// The largest playlist read: a larger "playlist" is something else.
    package static let maximumPlaylistBytes: Int64 = 8 << 20

    /// Which renditions of the groups the chosen variants name a walk takes.
    package enum Renditions: Sendable {
        /// Every audio and subtitle rendition of those groups: what playing offline in any language needs.
        case all
        /// One audio rendition per group (the default one, else the first): what a player starts with.
        case playedFirst
    }

    /// A segment of a media playlist.
    package struct Segment: Sendable, Equatable {
        /// Its resource.
        package let url: URL
        /// Its bytes of the resource; `nil`: all of it.
        package let range: Range<Int64>?
        /// Its duration in seconds (0 when the playlist does not say).
        package let duration: Double
    }

    /// Where playlists are read from, for which purpose and under which conditions.
    package let client: TransferClient

    package init(client: TransferClient) {
        self.client = client
    }

    /// Why a resource is not walked: what `HLSPinning` reports as its failure.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// The resource is no HLS playlist.
        case notAPlaylist(URL)
        /// A playlist larger than `HLSWalker.maximumPlaylistBytes`.
        case tooLarge(URL, Int64)

        /// A readable explanation.
        package var description: String {
            switch self {
            case .notAPlaylist(let url): "not an HLS playlist: \(CacheKeyPolicy.displayURL(for: url))"
            case .tooLarge(let url, let length):
                "a playlist of \(length) bytes is too large: \(CacheKeyPolicy.displayURL(for: url))"
            }
        }
    }

    /// The playlist of `resource`, read whole (in one request when it is not cached). Throws
    /// `Refusal.tooLarge` or `.notAPlaylist` for what is no playlist.
    package func playlist(
        _ resource: Resource, waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> HLSPlaylist {
        // Asked with one byte more than a playlist may have: a larger resource is told by its length, after a
        // bounded read.
        let (info, data) = try await client.data(
            resource, TransferSpan(start: 0, end: Self.maximumPlaylistBytes + 1), waiting: waiting)
        guard info.length <= Self.maximumPlaylistBytes else {
            throw Refusal.tooLarge(resource.url, info.length)
        }
        guard let playlist = HLSPlaylist(data, url: info.location ?? resource.url, map: { _ in nil }) else {
            throw Refusal.notAPlaylist(resource.url)
        }
        return playlist
    }

    /// The media playlists of `master` a player of `variants` plays: the chosen variants, then the
    /// `renditions` of the groups they name, each once. Empty for a media playlist.
    package static func media(
        of master: HLSPlaylist, variants: HLSVariantChoice, renditions: Renditions
    ) -> [HLSPlaylist.Reference] {
        let chosen = variants.pick(from: master.references.filter { $0.role == .variant })
        guard !chosen.isEmpty else { return [] }
        let picked: [HLSPlaylist.Reference]
        switch renditions {
        case .all:
            // Audio and subtitles; closed captions have no URI.
            let groups = Set(chosen.flatMap { [$0.attributes["AUDIO"], $0.attributes["SUBTITLES"]].compactMap { $0 } })
            picked = master.references.filter {
                $0.role == .rendition && groups.contains($0.attributes["GROUP-ID"] ?? "")
            }
        case .playedFirst:
            let groups = Set(chosen.compactMap { $0.attributes["AUDIO"] })
            let audio = master.references.filter {
                $0.role == .rendition && $0.attributes["TYPE"] == "AUDIO"
                    && groups.contains($0.attributes["GROUP-ID"] ?? "")
            }
            picked = groups.sorted().compactMap { group in
                let members = audio.filter { $0.attributes["GROUP-ID"] == group }
                return members.first { $0.attributes["DEFAULT"] == "YES" } ?? members.first
            }
        }
        var seen = Set<URL>()
        return (chosen + picked).filter { seen.insert($0.url).inserted }
    }

    /// What `playlist` names that a player reads to play it, in order: keys, initialization sections and
    /// segments (of a master: its session keys).
    package static func contents(of playlist: HLSPlaylist) -> [HLSPlaylist.Reference] {
        playlist.references.filter { [.sessionKey, .key, .initSection, .segment].contains($0.role) }
    }

    /// The segments of a media playlist, in order.
    package static func segments(of playlist: HLSPlaylist) -> [Segment] {
        playlist.references.filter { $0.role == .segment }.map {
            Segment(url: $0.url, range: $0.byteRange, duration: $0.duration ?? 0)
        }
    }
}
