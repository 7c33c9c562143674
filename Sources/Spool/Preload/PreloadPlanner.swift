import Foundation

/// Turns an item's target into a `PreloadPlan`, reading what the layout needs (an MP4's top-level box
/// headers and `moov`, an MP3's first frame, HLS playlists) through the transfer scheduler, as preloads:
/// those bytes are ones the player reads first anyway.
struct PreloadPlanner: Sendable {
    let client: TransferClient
    let configuration: PreloadConfiguration

    /// The bytes read first to tell the layout: an MP4's `ftyp`, an MP3's tag header and first frame.
    static let sniffBytes: Int64 = 16 * 1024

    /// The plan of `item`; `waiting` hears what its reads wait for.
    func plan(
        _ item: PreloadItem, waiting: @escaping @Sendable ([TransferBlocker]) -> Void = { _ in }
    ) async throws -> PreloadPlan {
        let resource = item.resource
        let target = item.target ?? configuration.target
        let (info, prefix) = try await client.data(
            resource, TransferSpan(start: 0, end: Self.sniffBytes), waiting: waiting)
        if HLSPlaylist.isPlaylistType(info.mimeType) || HLSPlaylist.startsPlaylist(prefix) {
            return try await HLSPreloadPlanner(walker: HLSWalker(client: client), configuration: configuration)
                .plan(resource, target: target, waiting: waiting)
        }
        let fallback = PreloadPlan(
            pieces: [.init(resource: resource, range: 0..<min(info.length, configuration.fallbackBytes))],
            basis: .fallback)
        switch target {
        case .bytes(let count):
            return PreloadPlan(pieces: [.init(resource: resource, range: 0..<min(info.length, count))], basis: .bytes)
        case .seconds(let seconds):
            let reader: (Range<Int64>) async throws -> Data = { range in
                if range.upperBound <= Int64(prefix.count) {
                    return prefix.subdata(in: Int(range.lowerBound)..<Int(range.upperBound))
                }
                return try await read(resource, range, waiting: waiting)
            }
            if MP4Layout.looksLikeMP4(prefix) {
                guard
                    let ranges = try await MP4Layout.ranges(forSeconds: seconds, length: info.length, read: reader)
                else { return fallback }
                return PreloadPlan(
                    pieces: ranges.map { .init(resource: resource, range: $0) },
                    basis: .mp4(movieAtEnd: ranges.count > 1))
            }
            if let ranges = try await MP3Layout.ranges(
                forSeconds: seconds, length: info.length, prefix: prefix, read: reader)
            {
                return PreloadPlan(pieces: ranges.map { .init(resource: resource, range: $0) }, basis: .mp3)
            }
            return fallback
        }
    }

    private func read(
        _ resource: Resource, _ range: Range<Int64>, waiting: @escaping @Sendable ([TransferBlocker]) -> Void
    ) async throws -> Data {
        guard !range.isEmpty else { return Data() }
        return try await client.data(resource, TransferSpan(range), waiting: waiting).data
    }
}
