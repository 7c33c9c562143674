// A Swift sample of the DocC article "Using the cache from Swift" (see ReadingThroughTheCache.swift).
import Foundation
import Spool

// sample begins
/// An origin that is not HTTP: files of a local folder standing in for a cloud SDK with a "stat" call and a
/// ranged download.
struct FolderOrigin: Origin {
    let folder: URL

    func contentInfo(for url: URL) async throws -> ContentInfo {
        let attributes = try FileManager.default.attributesOfItem(atPath: file(for: url).path)
        return ContentInfo(length: (attributes[.size] as? NSNumber)?.int64Value ?? 0)
    }

    func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
        let info = try await contentInfo(for: request.url)
        let handle = try FileHandle(forReadingFrom: file(for: request.url))
        try handle.seek(toOffset: UInt64(request.range.lowerBound))
        let bytes = try handle.read(upToCount: request.range.count) ?? Data()
        try handle.close()
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            continuation.yield(bytes)
            continuation.finish()
        }
        return OriginReadResponse(offset: request.range.lowerBound, info: info, body: body)
    }

    private func file(for url: URL) -> URL {
        folder.appendingPathComponent(url.lastPathComponent)
    }
}

/// Reads a song through the cache from that origin: `folder:/song.mp3` names `song.mp3` in `folder`.
func readSong(from folder: URL, cache: SpoolCache) -> ByteStream {
    cache.read(Resource(url: URL(string: "folder:/song.mp3")!, origin: FolderOrigin(folder: folder)))
}
// sample ends
