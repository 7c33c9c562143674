import Foundation
import Spool
import SpoolTesting
import XCTest

/// A test origin with one generated file, origins over one transport, and a cache in a fresh directory; all
/// gone when the test ends.
struct HTTPFixture {
    let origin: TestOrigin
    let directory: URL
    let url: URL
    let seed: UInt64
    let length: Int64
    let transport: OriginTransport
    private let test: XCTestCase

    init(
        test: XCTestCase, transport: OriginTransport, length: Int64, seed: UInt64 = 7,
        path: String = "/media/file.mp3", type: String = "audio/mpeg"
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
        self.transport = transport
        self.test = test
    }

    /// An HTTP origin over the fixture's transport.
    func makeHTTPOrigin(modifier: HTTPOrigin.RequestModifier? = nil, timeout: TimeInterval = 10) -> HTTPOrigin {
        transport.makeOrigin(for: test, modifier: modifier, timeout: timeout)
    }

    /// A cache on the fixture's directory (a new instance each call, as after a restart).
    func makeCache(modifier: HTTPOrigin.RequestModifier? = nil, policy: FetchPolicy = FetchPolicy()) throws
        -> SpoolCache
    {
        try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: makeHTTPOrigin(modifier: modifier), fetchPolicy: policy))
    }

    /// The source bytes of `range`.
    func bytes(_ range: Range<Int64>) -> Data {
        TestContent.generatedBytes(seed: seed, range: range)
    }
}
