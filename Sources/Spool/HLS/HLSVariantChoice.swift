import Foundation

/// Which variants of an HLS master playlist to download for offline play. Whatever the choice, the audio
/// and subtitle renditions the chosen variants name come along.
public enum HLSVariantChoice: Sendable, Equatable, Codable {
    /// The variant with the highest `BANDWIDTH`: the best a player would pick on a fast link.
    case highest
    /// The first variant listed: the one AVPlayer and most players start with.
    case first
    /// The highest variant whose `BANDWIDTH` is at most this many bits per second (the lowest when none is).
    case bandwidth(atMost: Int)
    /// The highest variant whose picture is at most this many pixels tall (the lowest when none is).
    case resolution(maximumHeight: Int)
    /// Every variant: a player may switch between them offline too.
    case all

    /// The variants of `variants` (the master's `.variant` references) this choice keeps.
    func pick(from variants: [HLSPlaylist.Reference]) -> [HLSPlaylist.Reference] {
        guard !variants.isEmpty else { return [] }
        // Stable on equal bandwidths: the first listed wins, as players start with it.
        let ascending = variants.enumerated().sorted {
            ($0.element.bandwidth ?? 0, -$0.offset) < ($1.element.bandwidth ?? 0, -$1.offset)
        }.map(\.element)
        switch self {
        case .all:
            return variants
        case .first:
            return [variants[0]]
        case .highest:
            return [ascending[ascending.count - 1]]
        case .bandwidth(let limit):
            return [ascending.last { ($0.bandwidth ?? 0) <= limit } ?? ascending[0]]
        case .resolution(let height):
            let fitting = ascending.filter { ($0.resolution?.height ?? 0) <= height }
            return [fitting.last ?? ascending.min { ($0.resolution?.height ?? 0) < ($1.resolution?.height ?? 0) }!]
        }
    }
}
