import Foundation

/// The plan of an HLS stream: of a master playlist, the variant `PreloadConfiguration.variants` picks and its
/// default audio rendition; of each media playlist, its keys and initialization section and the segments
/// covering the target's seconds (or, for a target in bytes, segments until their bytes reach it). A live
/// playlist gets its playlist only: its segments will have moved on by the time it plays.
struct HLSPreloadPlanner: Sendable {
    let cache: SpoolCache
    let configuration: PreloadConfiguration

    func plan(_ resource: Resource, target: PreloadTarget) async throws -> PreloadPlan {
        var pieces: [PreloadPlan.Piece] = []
        var seen = Set<URL>()
        func add(_ url: URL, _ range: Range<Int64>? = nil) {
            let resource = Resource(url: url, origin: resource.origin)
            if range == nil, !seen.insert(url).inserted { return }
            pieces.append(.init(resource: resource, range: range))
        }
        add(resource.url)
        let top = try await playlist(resource)
        var media: [(Resource, HLSPlaylist)] = []
        let variants = top.references.filter { $0.role == .variant }
        if variants.isEmpty {
            media.append((resource, top))
        } else {
            let chosen = configuration.variants.pick(from: variants)
            for key in top.references where key.role == .sessionKey { add(key.url) }
            let audioGroups = Set(chosen.compactMap { $0.attributes["AUDIO"] })
            let audio = top.references.filter {
                $0.role == .rendition && $0.attributes["TYPE"] == "AUDIO"
                    && audioGroups.contains($0.attributes["GROUP-ID"] ?? "")
            }
            // A player plays one audio rendition per group: the default one, else the first.
            var renditions: [HLSPlaylist.Reference] = []
            for group in audioGroups.sorted() {
                let members = audio.filter { $0.attributes["GROUP-ID"] == group }
                if let pick = members.first(where: { $0.attributes["DEFAULT"] == "YES" }) ?? members.first {
                    renditions.append(pick)
                }
            }
            for reference in chosen + renditions {
                add(reference.url)
                let mediaResource = Resource(url: reference.url, origin: resource.origin)
                media.append((mediaResource, try await playlist(mediaResource)))
            }
        }
        var segments = 0
        for (_, playlist) in media where !playlist.isLive {
            var seconds = 0.0
            for reference in playlist.references {
                switch reference.role {
                case .key, .initSection:
                    if let range = reference.byteRange { add(reference.url, range) } else { add(reference.url) }
                case .segment:
                    if case .seconds(let wanted) = target, seconds >= wanted { continue }
                    if let range = reference.byteRange { add(reference.url, range) } else { add(reference.url) }
                    seconds += reference.duration ?? 0
                    segments += 1
                default:
                    continue
                }
            }
        }
        var plan = PreloadPlan(pieces: pieces, basis: .hls(segments: segments))
        if case .bytes(let count) = target { plan.byteBudget = count }
        if segments == 0 { plan.basis = .fallback }
        return plan
    }

    /// The playlist of `resource`, read whole through the cache (at prefetch priority).
    private func playlist(_ resource: Resource) async throws -> HLSPlaylist {
        let info = try await cache.contentInfo(for: resource, extent: .whole)
        guard info.length <= HLSPinning.maximumPlaylistBytes else {
            throw HLSPinning.Failure.tooLarge(resource.url, info.length)
        }
        let data = try await cache.data(of: resource, in: 0..<info.length, priority: .prefetch)
        guard let playlist = HLSPlaylist(data, url: info.location ?? resource.url, map: { _ in nil }) else {
            throw HLSPinning.Failure.notAPlaylist(resource.url)
        }
        return playlist
    }
}
