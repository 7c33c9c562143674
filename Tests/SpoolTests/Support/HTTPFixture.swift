import Foundation
import Spool
import SpoolTesting
import XCTest

/// A test origin with one generated file, and a cache in a fresh directory; both gone when the test ends.
struct HTTPFixture {
    let origin: TestOrigin
    let directory: URL
    let url: URL
    let seed: UInt64
    let length: Int64

    init(
        test: XCTestCase, length: Int64, seed: UInt64 = 7, path: String = "/media/file.mp3", type: String = "audio/mpeg"
    ) throws {
        origin = try TestOrigin()
        directory = try makeTemporaryDirectory()
        let origin = origin
        let directory = directory
        test.addTeardownBlock {
            origin.stop()
            try? FileManager.default.removeItem(at: directory)
        }
        origin.serve(.generated(length: length, seed: seed), at: path, contentType: type)
        url = origin.url(for: path)
        self.seed = seed
        self.length = length
    }

    /// A cache on the fixture's directory (a new instance each call, as after a restart).
    func makeCache(
        modifier: HTTPOrigin.RequestModifier? = nil, policy: FetchPolicy = FetchPolicy(),
        originTimeout: TimeInterval = 10
    ) throws -> SpoolCache {
        try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: HTTPOrigin(modifier: modifier, timeout: originTimeout),
                fetchPolicy: policy))
    }

    /// The source bytes of `range`.
    func bytes(_ range: Range<Int64>) -> Data {
        TestContent.generatedBytes(seed: seed, range: range)
    }
}

/// Reads a stream, returning what arrived before it ended or failed, and the failure.
func collectUntilFailure(_ stream: ByteStream) async -> (Data, (any Error)?) {
    var data = Data()
    do {
        for try await chunk in stream { data.append(chunk) }
        return (data, nil)
    } catch {
        return (data, error)
    }
}

/// Every regular file under `directory`, for scans of what the cache wrote.
func filesUnder(_ directory: URL) -> [URL] {
    let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
    return (enumerator?.allObjects as? [URL] ?? []).filter {
        (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
}
