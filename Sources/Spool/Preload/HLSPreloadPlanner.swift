import Foundation

/// The plan of an HLS stream: of a master playlist, the variant `PreloadConfiguration.variants` picks and its
/// default audio rendition; of each media playlist, its keys and initialization section and the segments
/// covering the target's seconds (or, for a target in bytes, segments until their bytes reach it). A live
/// playlist gets its playlist only: its segments will have moved on by the time it plays.
struct HLSPreloadPlanner: Sendable {
    let walker: HLSWalker
    let configuration: PreloadConfiguration

    func plan(
        _ resource: Resource, target: PreloadTarget, waiting: @escaping @Sendable ([TransferBlocker]) -> Void
    ) async throws -> PreloadPlan {
        var pieces: [PreloadPlan.Piece] = []
        var seen = Set<URL>()
        func add(_ url: URL, _ range: Range<Int64>? = nil) {
            let resource = Resource(url: url, origin: resource.origin)
            if range == nil, !seen.insert(url).inserted { return }
            pieces.append(.init(resource: resource, range: range))
        }
        add(resource.url)
        let top = try await walker.playlist(resource, waiting: waiting)
        var media: [HLSPlaylist] = []
        let chosen = HLSWalker.media(of: top, variants: configuration.variants, renditions: .playedFirst)
        if chosen.isEmpty {
            media.append(top)
        } else {
            for key in top.references where key.role == .sessionKey { add(key.url) }
            for reference in chosen {
                add(reference.url)
                media.append(
                    try await walker.playlist(Resource(url: reference.url, origin: resource.origin), waiting: waiting))
            }
        }
        var segments = 0
        for playlist in media where !playlist.isLive {
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
}
