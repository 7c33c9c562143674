import Foundation

/// One version of the content at a path, with the validators that identify that version.
struct ServedResource: Sendable {
    let content: TestContent
    let contentType: String
    let length: Int64
    let etag: String
    let lastModified: String

    /// Fixed base for Last-Modified (2020-01-01T00:00:00Z); each new version adds one second,
    /// so two versions served within the same wall-clock second still differ.
    private static let baseEpochSeconds = 1_577_836_800

    init(content: TestContent, contentType: String, path: String, version: Int) {
        self.content = content
        self.contentType = contentType
        self.length = content.currentLength
        self.etag = "\"\(String(version, radix: 16))-\(String(Self.pathHash(path), radix: 16))\""
        self.lastModified = OriginDate.format(epochSeconds: Self.baseEpochSeconds + version)
    }

    /// FNV-1a: stable across processes, unlike `Hasher`, so ETags are reproducible.
    private static func pathHash(_ path: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in path.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        return hash
    }
}
