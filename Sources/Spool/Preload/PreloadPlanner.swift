import Foundation

/// Turns an item's target into a `PreloadPlan`, reading what the layout needs (an MP4's top-level box
/// headers and `moov`, an MP3's first frame, HLS playlists) through the cache at prefetch priority: those
/// bytes are ones the player reads first anyway.
struct PreloadPlanner: Sendable {
    let cache: SpoolCache
    let configuration: PreloadConfiguration

    /// The bytes read first to tell the layout: an MP4's `ftyp`, an MP3's tag header and first frame.
    static let sniffBytes: Int64 = 16 * 1024

    func plan(_ item: PreloadItem) async throws -> PreloadPlan {
        let resource = item.resource
        let target = item.target ?? configuration.target
        await cache.gate.waitForPlayback()
        let info = try await cache.contentInfo(for: resource, firstRead: 0..<min(Self.sniffBytes, 1 << 20))
        let prefix = try await read(resource, 0..<min(info.length, Self.sniffBytes))
        if HLSPlaylist.isPlaylistType(info.mimeType) || HLSPlaylist.startsPlaylist(prefix) {
            return try await HLSPreloadPlanner(cache: cache, configuration: configuration)
                .plan(resource, target: target)
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
                return try await read(resource, range)
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

    private func read(_ resource: Resource, _ range: Range<Int64>) async throws -> Data {
        guard !range.isEmpty else { return Data() }
        return try await cache.data(of: resource, in: range, priority: .prefetch)
    }
}
