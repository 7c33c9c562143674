import Foundation

extension SpoolCache {
    /// Up to `limit` bytes of `resource` from its first, read from the origin past what is stored, with the
    /// version the origin answered: for a live playlist's reload, which the stored copy keeps serving
    /// meanwhile. The request is the engine's (`DirectRead`): timed, retried and counted like every other.
    package func readPastCache(_ resource: Resource, upTo limit: Int64) async throws -> (
        info: ContentInfo, data: Data
    ) {
        let engine = acquire(resource)
        defer { release(engine) }
        let read = DirectRead(fetcher: engine.fetcher, info: nil, from: 0, to: max(0, limit))
        defer { read.cancel() }
        var data = Data()
        while let chunk = try await read.next() { data.append(chunk) }
        guard let info = read.info else {
            throw SpoolError.invalidResponse("the origin described nothing of \(resource.url.absoluteString)")
        }
        return (info, data)
    }
}
