import Foundation
import Spool
import SpoolTesting

/// A non-HTTP origin shaped like a cloud-storage SDK: a "stat" call for size and type, and a ranged
/// download. It proves the engine needs nothing HTTP-specific, and counts what it serves.
final class SDKOrigin: Origin, @unchecked Sendable {
    struct Statistics {
        var statCalls = 0
        var reads = 0
        var bytesServed: Int64 = 0
    }

    private let lock = NSLock()
    private var content: Data
    private var version = 1
    private var stats = Statistics()
    private var offline = false
    /// Pause between chunks, so tests can observe reads in flight.
    var chunkDelay: Duration = .zero
    let chunkSize = 16 * 1024

    init(content: Data) {
        self.content = content
    }

    var statistics: Statistics { lock.withLock { stats } }

    /// Replaces the content with a new version.
    func replace(with newContent: Data) {
        lock.withLock {
            content = newContent
            version += 1
        }
    }

    /// Makes every call fail, as an SDK does without network.
    func setOffline(_ value: Bool) {
        lock.withLock { offline = value }
    }

    private func snapshot() throws -> (Data, ContentInfo) {
        try lock.withLock {
            if offline { throw SpoolError.network("offline") }
            return (
                content, ContentInfo(length: Int64(content.count), mimeType: "audio/mpeg", entityTag: "\"v\(version)\"")
            )
        }
    }

    func contentInfo(for url: URL) async throws -> ContentInfo {
        let (_, info) = try snapshot()
        lock.withLock { stats.statCalls += 1 }
        return info
    }

    func read(_ request: OriginReadRequest) async throws -> OriginReadResponse {
        let (data, info) = try snapshot()
        lock.withLock { stats.reads += 1 }
        // Like If-Range: a stale validator gets the whole current version.
        let range: Range<Int64> =
            if let validator = request.validator, validator != info.entityTag {
                0..<info.length
            } else {
                request.range.clamped(to: 0..<info.length)
            }
        let delay = chunkDelay
        let chunkSize = chunkSize
        let body = AsyncThrowingStream<Data, any Error> { continuation in
            let task = Task {
                var offset = range.lowerBound
                while offset < range.upperBound, !Task.isCancelled {
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    let end = min(range.upperBound, offset + Int64(chunkSize))
                    let chunk = data.subdata(in: Int(offset)..<Int(end))
                    self.lock.withLock { self.stats.bytesServed += Int64(chunk.count) }
                    continuation.yield(chunk)
                    offset = end
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return OriginReadResponse(offset: range.lowerBound, info: info, body: body)
    }
}

/// Deterministic pseudo-random bytes.
func randomBytes(count: Int, seed: UInt64) -> Data {
    var generator = SeededGenerator(seed: seed)
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
        let words = buffer.bindMemory(to: UInt8.self)
        var index = 0
        while index < count {
            var word = generator.next()
            for _ in 0..<8 where index < count {
                words[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
    return data
}

/// Collects a whole stream.
func collect(_ stream: ByteStream) async throws -> Data {
    var data = Data()
    for try await chunk in stream { data.append(chunk) }
    return data
}

/// A fresh temporary directory, removed by the caller.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "spool-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
