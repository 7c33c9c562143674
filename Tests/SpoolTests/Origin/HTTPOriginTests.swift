import Foundation
import Spool
import SpoolTesting
import XCTest

/// Content information, redirects, request modifiers and cache keys, against a real HTTP server.
final class HTTPOriginTests: XCTestCase {
    func testContentInformationFromHead() async throws {
        let fixture = try HTTPFixture(test: self, length: 1_000_000)
        let info = try await HTTPOrigin().contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 1_000_000)
        XCTAssertEqual(info.mimeType, "audio/mpeg")
        XCTAssertTrue(info.acceptsRanges)
        XCTAssertNotNil(info.entityTag)
        XCTAssertNotNil(info.lastModified)
        XCTAssertEqual(fixture.origin.requests.map(\.method), ["HEAD"])
    }

    func testRefusedHeadFallsBackToATwoByteRange() async throws {
        let fixture = try HTTPFixture(test: self, length: 500_000)
        fixture.origin.behaviour.refusesHead = true
        let info = try await HTTPOrigin().contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 500_000)
        XCTAssertTrue(info.acceptsRanges)
        XCTAssertEqual(fixture.origin.requests.map(\.method), ["HEAD", "GET"])
        XCTAssertEqual(fixture.origin.requests.last?.range, "bytes=0-1")
    }

    func testLowercaseHeaderNamesAndNoContentLength() async throws {
        let fixture = try HTTPFixture(test: self, length: 300_000)
        fixture.origin.behaviour.lowercaseHeaderNames = true
        fixture.origin.behaviour.omitsContentLength = true
        let cache = try fixture.makeCache()
        let info = try await cache.contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 300_000, "the length comes from Content-Range when Content-Length is missing")
        XCTAssertEqual(info.mimeType, "audio/mpeg")
        let data = try await collect(cache.read(fixture.url, from: 1000, length: 200_000))
        XCTAssertEqual(data, fixture.bytes(1000..<201_000))
    }

    func testRedirectIsFollowedAndRememberedUnderTheOriginalKey() async throws {
        let fixture = try HTTPFixture(test: self, length: 2_000_000)
        fixture.origin.behaviour.redirect = true
        let cache = try fixture.makeCache()
        let first = try await collect(cache.read(fixture.url, from: 0, length: 100_000))
        XCTAssertEqual(first, fixture.bytes(0..<100_000))
        fixture.origin.resetCounters()
        let second = try await collect(cache.read(fixture.url, from: 1_000_000, length: 100_000))
        XCTAssertEqual(second, fixture.bytes(1_000_000..<1_100_000))
        let paths = fixture.origin.requests.map(\.path)
        XCTAssertFalse(paths.isEmpty)
        XCTAssertTrue(paths.allSatisfy { $0.hasPrefix("/__redirected__") }, "later ranges go to the final URL: \(paths)")
        XCTAssertEqual(cache.entry(for: fixture.url)?.cachedBytes, 200_000)
    }

    func testModifierHeadersReachEveryRequestAndNeverTheDisk() async throws {
        let fixture = try HTTPFixture(test: self, length: 700_000)
        let token = "Bearer SECRET-TOKEN-4711"
        let cache = try fixture.makeCache(modifier: .headers(["Authorization": token]))
        let tokenURL = URL(string: fixture.url.absoluteString + "?token=QUERYSECRET99&quality=high")!
        _ = try await collect(cache.read(tokenURL))
        let requests = fixture.origin.requests
        XCTAssertGreaterThan(requests.count, 1)
        XCTAssertTrue(requests.allSatisfy { $0.headers["authorization"] == token })
        for file in filesUnder(fixture.directory) {
            let contents = try Data(contentsOf: file)
            XCTAssertNil(contents.range(of: Data("SECRET-TOKEN".utf8)), "token in \(file.lastPathComponent)")
            XCTAssertNil(contents.range(of: Data("QUERYSECRET99".utf8)), "query token in \(file.lastPathComponent)")
            XCTAssertFalse(file.lastPathComponent.contains("SECRET"))
        }
        XCTAssertEqual(cache.entries().first?.url.contains("quality=high"), true, "non-credential query items stay")
        // The same file with a rotated token is the same cache entry.
        fixture.origin.resetCounters()
        let rotated = URL(string: fixture.url.absoluteString + "?quality=high&token=OTHER")!
        let again = try await collect(cache.read(rotated))
        XCTAssertEqual(again, fixture.bytes(0..<700_000))
        XCTAssertEqual(fixture.origin.bodyBytesSent, 0)
    }

    func testAppSuppliedCacheKey() async throws {
        let fixture = try HTTPFixture(test: self, length: 100_000)
        let cache = try fixture.makeCache()
        _ = try await collect(cache.read(Resource(url: fixture.url, cacheKey: "track-42")))
        fixture.origin.resetCounters()
        let elsewhere = Resource(url: URL(string: "http://127.0.0.1:1/other/host.mp3")!, cacheKey: "track-42")
        let data = try await collect(cache.read(elsewhere))
        XCTAssertEqual(data, fixture.bytes(0..<100_000))
        XCTAssertEqual(fixture.origin.requestCount, 0)
    }

    func testUnsupportedSchemesAndUnreachableOrigins() async throws {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory))
        for text in ["ftp://127.0.0.1/file.mp3", "file:///etc/passwd"] {
            let (_, error) = await collectUntilFailure(cache.read(URL(string: text)!))
            guard case .unsupportedScheme? = error as? SpoolError else { return XCTFail("\(text): \(String(describing: error))") }
        }
        let closedPort = try TestOrigin()
        let url = closedPort.url(for: "/gone.mp3")
        closedPort.stop()
        let (_, error) = await collectUntilFailure(cache.read(url))
        guard case .network? = error as? SpoolError else { return XCTFail("unreachable: \(String(describing: error))") }
    }

    func testRangeNotSatisfiable() async throws {
        let fixture = try HTTPFixture(test: self, length: 1000)
        do {
            _ = try await HTTPOrigin().read(OriginReadRequest(url: fixture.url, range: 5000..<6000))
            XCTFail("a range beyond the end must fail")
        } catch SpoolError.rangeNotSatisfiable(let requested, let length) {
            XCTAssertEqual(requested, 5000)
            XCTAssertEqual(length, 1000)
        }
    }
}
