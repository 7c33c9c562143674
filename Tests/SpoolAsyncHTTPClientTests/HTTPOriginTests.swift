import Foundation
import Spool
import SpoolTesting
import XCTest

/// Content information, redirects, request modifiers, cache keys and timeouts, against a real HTTP server,
/// over URLSession; `HTTPOriginOverAsyncHTTPClientTests` runs the same over AsyncHTTPClient.
class HTTPOriginTests: XCTestCase {
    /// The transport every test here goes through.
    var transport: OriginTransport { .urlSession }

    private func makeFixture(length: Int64) throws -> HTTPFixture {
        try HTTPFixture(test: self, transport: transport, length: length)
    }

    func testContentInformationFromHead() async throws {
        let fixture = try makeFixture(length: 1_000_000)
        let info = try await fixture.makeHTTPOrigin().contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 1_000_000)
        XCTAssertEqual(info.mimeType, "audio/mpeg")
        XCTAssertTrue(info.acceptsRanges)
        XCTAssertNotNil(info.entityTag)
        XCTAssertNotNil(info.lastModified)
        XCTAssertEqual(fixture.origin.requests.map(\.method), ["HEAD"])
        XCTAssertEqual(fixture.origin.requests.first?.headers["accept-encoding"], "identity")
    }

    func testRefusedHeadFallsBackToATwoByteRange() async throws {
        let fixture = try makeFixture(length: 500_000)
        fixture.origin.behaviour.refusesHead = true
        let info = try await fixture.makeHTTPOrigin().contentInfo(for: fixture.url)
        XCTAssertEqual(info.length, 500_000)
        XCTAssertTrue(info.acceptsRanges)
        XCTAssertEqual(fixture.origin.requests.map(\.method), ["HEAD", "GET"])
        XCTAssertEqual(fixture.origin.requests.last?.range, "bytes=0-1")
    }

    func testLowercaseHeaderNamesAndNoContentLength() async throws {
        let fixture = try makeFixture(length: 300_000)
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
        let fixture = try makeFixture(length: 2_000_000)
        fixture.origin.behaviour.redirect = true
        let cache = try fixture.makeCache()
        let first = try await collect(cache.read(fixture.url, from: 0, length: 100_000))
        XCTAssertEqual(first, fixture.bytes(0..<100_000))
        fixture.origin.resetCounters()
        let second = try await collect(cache.read(fixture.url, from: 1_000_000, length: 100_000))
        XCTAssertEqual(second, fixture.bytes(1_000_000..<1_100_000))
        let paths = fixture.origin.requests.map(\.path)
        XCTAssertFalse(paths.isEmpty)
        XCTAssertTrue(
            paths.allSatisfy { $0.hasPrefix("/__redirected__") }, "later ranges go to the final URL: \(paths)")
        let foundEntry = await cache.entry(for: fixture.url)
        let cached = try XCTUnwrap(foundEntry?.cachedRanges)
        XCTAssertTrue(cached.contains(0..<100_000) && cached.contains(1_000_000..<1_100_000), "\(cached.ranges)")
        // The first request, which brought the content information, asked for no more than its first size.
        XCTAssertLessThanOrEqual(cached.byteCount, 200_000 + FetchPolicy().firstRequestSize)
        // Where the bytes came from is part of what the cache knows of them, after a restart too.
        let location = try await cache.contentInfo(for: fixture.url).location
        XCTAssertEqual(location?.path.hasPrefix("/__redirected__"), true, "\(String(describing: location))")
        await cache.close()
        fixture.origin.resetCounters()
        let reopened = try fixture.makeCache()
        let again = try await reopened.contentInfo(for: fixture.url)
        XCTAssertEqual(again.location, location)
        XCTAssertEqual(fixture.origin.requests.count, 0, "known from the index")
        await reopened.close()
    }

    func testRedirectKeepsRangeValidatorAndSameHostCredentials() async throws {
        let fixture = try makeFixture(length: 100_000)
        let origin = fixture.makeHTTPOrigin(
            modifier: HTTPOrigin.settingHeaders(["Authorization": "Bearer T", "Cookie": "c=1"]))
        let info = try await origin.contentInfo(for: fixture.url)
        fixture.origin.behaviour.redirect = true
        fixture.origin.resetCounters()
        let validator = try XCTUnwrap(info.rangeValidator)
        let response = try await origin.read(
            OriginReadRequest(url: fixture.url, range: 1000..<3000, validator: validator))
        let body = try await collect(response.body)
        XCTAssertEqual(body, fixture.bytes(1000..<3000))
        let requests = fixture.origin.requests
        XCTAssertEqual(requests.map(\.path), ["/media/file.mp3", "/__redirected__/media/file.mp3"])
        for request in requests {
            XCTAssertEqual(request.range, "bytes=1000-2999", request.path)
            XCTAssertEqual(request.headers["if-range"], validator, request.path)
            XCTAssertEqual(request.headers["authorization"], "Bearer T", request.path)
            XCTAssertEqual(request.headers["cookie"], "c=1", request.path)
        }
    }

    func testCredentialsNeverFollowARedirectToAnotherHost() async throws {
        let fixture = try makeFixture(length: 100_000)
        fixture.origin.behaviour.redirect = true
        fixture.origin.behaviour.redirectHost = "localhost"
        let origin = fixture.makeHTTPOrigin(
            modifier: HTTPOrigin.settingHeaders(["Authorization": "Bearer T", "Cookie": "c=1"]))
        for range: Range<Int64> in [0..<1000, 5000..<6000] {
            let response = try await origin.read(OriginReadRequest(url: fixture.url, range: range))
            let body = try await collect(response.body)
            XCTAssertEqual(body, fixture.bytes(range))
        }
        let requests = fixture.origin.requests
        // The first read goes through the redirect; the second straight to where it led.
        XCTAssertEqual(
            requests.map(\.path),
            ["/media/file.mp3", "/__redirected__/media/file.mp3", "/__redirected__/media/file.mp3"])
        XCTAssertEqual(requests.map { $0.headers["host"]?.hasPrefix("localhost:") }, [false, true, true])
        XCTAssertEqual(requests[0].headers["authorization"], "Bearer T")
        for request in requests.dropFirst() {
            XCTAssertNil(request.headers["authorization"])
            XCTAssertNil(request.headers["cookie"])
            XCTAssertNotNil(request.range, "the range goes along")
        }
    }

    func testEndlessRedirectsFailAfterTheHopLimit() async throws {
        let fixture = try makeFixture(length: 1000)
        fixture.origin.behaviour.redirectsToItself = true
        do {
            _ = try await fixture.makeHTTPOrigin().contentInfo(for: fixture.url)
            XCTFail("a redirect loop must fail")
        } catch SpoolError.invalidResponse(let reason) {
            XCTAssertTrue(reason.contains("redirects"), reason)
        }
        XCTAssertEqual(fixture.origin.requestCount, 11, "the request and 10 hops")
    }

    func testModifierHeadersReachEveryRequestAndNeverTheDisk() async throws {
        let fixture = try makeFixture(length: 700_000)
        let token = "Bearer SECRET-TOKEN-4711"
        let cache = try fixture.makeCache(modifier: HTTPOrigin.settingHeaders(["Authorization": token]))
        let tokenURL = URL(string: fixture.url.absoluteString + "?token=QUERYSECRET99&quality=high")!
        // Two reads: each is at least one request (over AsyncHTTPClient a read is one request).
        _ = try await collect(cache.read(tokenURL, from: 0, length: 100_000))
        _ = try await collect(cache.read(tokenURL, from: 100_000))
        let requests = fixture.origin.requests
        XCTAssertGreaterThan(requests.count, 1)
        XCTAssertTrue(requests.allSatisfy { $0.headers["authorization"] == token })
        let entries = await cache.entries()
        // Closed, so that nothing writes during the scan: a read's request may still be ending after the read
        // returns, and its index write (a temporary file renamed into place) vanished under the scan.
        await cache.close()
        for file in filesUnder(fixture.directory) {
            let contents = try Data(contentsOf: file)
            XCTAssertNil(contents.range(of: Data("SECRET-TOKEN".utf8)), "token in \(file.lastPathComponent)")
            XCTAssertNil(contents.range(of: Data("QUERYSECRET99".utf8)), "query token in \(file.lastPathComponent)")
            XCTAssertFalse(file.lastPathComponent.contains("SECRET"))
        }
        XCTAssertEqual(entries.first?.url.contains("quality=high"), true, "non-credential query items stay")
        // The same file with a rotated token is the same cache entry.
        fixture.origin.resetCounters()
        let rotated = URL(string: fixture.url.absoluteString + "?quality=high&token=OTHER")!
        let reopened = try fixture.makeCache(modifier: HTTPOrigin.settingHeaders(["Authorization": token]))
        let again = try await collect(reopened.read(rotated))
        await reopened.close()
        XCTAssertEqual(again, fixture.bytes(0..<700_000))
        XCTAssertEqual(fixture.origin.bodyBytesSent, 0)
    }

    func testAppSuppliedCacheKey() async throws {
        let fixture = try makeFixture(length: 100_000)
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
        let cache = try SpoolCache(
            configuration: SpoolConfiguration(
                directory: directory, origin: transport.makeOrigin(for: self)))
        for text in ["ftp://127.0.0.1/file.mp3", "file:///etc/passwd"] {
            let (_, error) = await collectUntilFailure(cache.read(URL(string: text)!))
            guard case .unsupportedScheme? = error as? SpoolError else {
                return XCTFail("\(text): \(String(describing: error))")
            }
        }
        let closedPort = try TestOrigin()
        let url = closedPort.url(for: "/gone.mp3")
        closedPort.stop()
        // The origin's timeout is the transport's default (a minute or more): a bound short of it shows the
        // refusal ended the read, not a timeout.
        let read = try await withinHangBound(seconds: 30) { await collectUntilFailure(cache.read(url)) }
        let (_, error) = try XCTUnwrap(read, "a refused connection fails at once, not after a timeout")
        guard case .network? = error as? SpoolError else { return XCTFail("unreachable: \(String(describing: error))") }
        // What happened, with which server, and what to check: the same words over either transport.
        XCTAssertEqual(
            "\(error.map(String.init(describing:)) ?? "")",
            "network error: cannot connect to 127.0.0.1:\(url.port!): connection refused (is the server running, on "
                + "that port?)")
    }

    func testRangeNotSatisfiable() async throws {
        let fixture = try makeFixture(length: 1000)
        do {
            _ = try await fixture.makeHTTPOrigin().read(OriginReadRequest(url: fixture.url, range: 5000..<6000))
            XCTFail("a range beyond the end must fail")
        } catch SpoolError.rangeNotSatisfiable(let requested, let length) {
            XCTAssertEqual(requested, 5000)
            XCTAssertEqual(length, 1000)
        }
    }

    func testSilentOriginTimesOut() async throws {
        let fixture = try makeFixture(length: 1000)
        // It answers after 10 s: a timeout of 1 s must end the wait first.
        fixture.origin.behaviour.answerDelay = 10
        do {
            _ = try await fixture.makeHTTPOrigin(timeout: 1).contentInfo(for: fixture.url)
            XCTFail("an origin that never answers must time out")
        } catch let error as SpoolError {
            // It names the server that went silent, as every network failure does.
            let server = "127.0.0.1:\(fixture.url.port ?? 0)"
            XCTAssertEqual(error, .timedOut(server: server))
            XCTAssertTrue(error.description.hasPrefix("\(server) sent nothing in time"), error.description)
        }
    }

    func testStalledBodyTimesOut() async throws {
        let fixture = try makeFixture(length: 100_000)
        fixture.origin.behaviour.stallAfterBytes = 30_000
        let response = try await fixture.makeHTTPOrigin(timeout: 1).read(
            OriginReadRequest(url: fixture.url, range: 0..<100_000))
        var received = Data()
        do {
            for try await chunk in response.body { received.append(chunk) }
            XCTFail("a body that stalls must time out")
        } catch SpoolError.timedOut(let server) {
            XCTAssertEqual(server, "127.0.0.1:\(fixture.url.port ?? 0)")
        }
        XCTAssertEqual(received, fixture.bytes(0..<30_000))
    }

    func testCancellingTheCallerBeforeTheHeadThrowsCancellationError() async throws {
        let fixture = try makeFixture(length: 1000)
        // An answer in an hour: only the cancellation can end the read within the bound.
        fixture.origin.behaviour.answerDelay = 3600
        let origin = fixture.makeHTTPOrigin()
        let url = fixture.url
        let task = Task { try await origin.read(OriginReadRequest(url: url, range: 0..<1000)) }
        _ = await eventually { fixture.origin.requestCount == 1 }
        task.cancel()
        let ended = try await withinHangBound { await task.result }
        guard case .failure(let error)? = ended else {
            return XCTFail("the cancelled read went on: \(String(describing: ended))")
        }
        XCTAssertTrue(error is CancellationError, "\(error)")
    }

    /// A fetch whose reader went away can be cancelled before its request has started: the read must end at
    /// once, without a request (FoundationNetworking never completes a task cancelled before `resume()`, and
    /// such a read used to wait forever, and with it every `SpoolCache.close()`).
    func testAReadCancelledBeforeItStartsEndsAtOnceWithoutARequest() async throws {
        let fixture = try makeFixture(length: 1000)
        let origin = fixture.makeHTTPOrigin()
        let url = fixture.url
        for _ in 0..<20 {
            let outcome = Locked<Result<Void, any Error>?>(nil)
            Task {
                withUnsafeCurrentTask { $0?.cancel() }
                do {
                    _ = try await origin.read(OriginReadRequest(url: url, range: 0..<1000))
                    outcome.withLock { $0 = .success(()) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            let ended = await eventually(timeout: 5) { outcome.withLock { $0 != nil } }
            guard ended else {
                return XCTFail("a read cancelled before it started is still waiting after 5 s")
            }
            guard case .failure(let error) = outcome.withLock({ $0 })! else {
                XCTFail("a cancelled read must not succeed")
                return
            }
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
        XCTAssertEqual(fixture.origin.requestCount, 0, "no request goes out for a read cancelled before it started")
    }

    func testDroppingABodyClosesItsConnection() async throws {
        let length: Int64 = 64 << 20
        let fixture = try makeFixture(length: length)
        // Slower than either client can read, so that what was sent before the drop is small and the same
        // with backpressure or without: the whole body would take 3 s.
        fixture.origin.behaviour.throttleBytesPerSecond = 20 << 20
        let response = try await fixture.makeHTTPOrigin().read(OriginReadRequest(url: fixture.url, range: 0..<length))
        var iterator: AsyncThrowingStream<Data, any Error>.Iterator? = response.body.makeAsyncIterator()
        let first = try await iterator?.next()
        XCTAssertEqual(first.map { fixture.bytes(0..<Int64($0.count)) }, first)
        iterator = nil
        _ = consume response
        let closed = await eventually { fixture.origin.openConnectionCount == 0 }
        XCTAssertTrue(closed, "the origin still has \(fixture.origin.openConnectionCount) connection(s) open")
        let sent = fixture.origin.bodyBytesSent
        try await Task.sleep(nanoseconds: 300_000_000)
        XCTAssertEqual(fixture.origin.bodyBytesSent, sent, "nothing is sent once the connection is gone")
        XCTAssertLessThan(sent, 16 << 20)
    }
}

/// `HTTPOriginTests` over AsyncHTTPClient. Test discovery on Linux finds only the test methods a class
/// declares itself, so each is repeated here.
final class HTTPOriginOverAsyncHTTPClientTests: HTTPOriginTests {
    override var transport: OriginTransport { .asyncHTTPClient }

    override func testContentInformationFromHead() async throws {
        try await super.testContentInformationFromHead()
    }

    override func testRefusedHeadFallsBackToATwoByteRange() async throws {
        try await super.testRefusedHeadFallsBackToATwoByteRange()
    }

    override func testLowercaseHeaderNamesAndNoContentLength() async throws {
        try await super.testLowercaseHeaderNamesAndNoContentLength()
    }

    override func testRedirectIsFollowedAndRememberedUnderTheOriginalKey() async throws {
        try await super.testRedirectIsFollowedAndRememberedUnderTheOriginalKey()
    }

    override func testRedirectKeepsRangeValidatorAndSameHostCredentials() async throws {
        try await super.testRedirectKeepsRangeValidatorAndSameHostCredentials()
    }

    override func testCredentialsNeverFollowARedirectToAnotherHost() async throws {
        try await super.testCredentialsNeverFollowARedirectToAnotherHost()
    }

    override func testEndlessRedirectsFailAfterTheHopLimit() async throws {
        try await super.testEndlessRedirectsFailAfterTheHopLimit()
    }

    override func testModifierHeadersReachEveryRequestAndNeverTheDisk() async throws {
        try await super.testModifierHeadersReachEveryRequestAndNeverTheDisk()
    }

    override func testAppSuppliedCacheKey() async throws {
        try await super.testAppSuppliedCacheKey()
    }

    override func testUnsupportedSchemesAndUnreachableOrigins() async throws {
        try await super.testUnsupportedSchemesAndUnreachableOrigins()
    }

    override func testRangeNotSatisfiable() async throws {
        try await super.testRangeNotSatisfiable()
    }

    override func testSilentOriginTimesOut() async throws {
        try await super.testSilentOriginTimesOut()
    }

    override func testStalledBodyTimesOut() async throws {
        try await super.testStalledBodyTimesOut()
    }

    override func testCancellingTheCallerBeforeTheHeadThrowsCancellationError() async throws {
        try await super.testCancellingTheCallerBeforeTheHeadThrowsCancellationError()
    }

    override func testAReadCancelledBeforeItStartsEndsAtOnceWithoutARequest() async throws {
        try await super.testAReadCancelledBeforeItStartsEndsAtOnceWithoutARequest()
    }

    override func testDroppingABodyClosesItsConnection() async throws {
        try await super.testDroppingABodyClosesItsConnection()
    }
}

/// `HTTPOriginTests` over URLSession as on Apple's platforms, whose bodies pause (`PushingTransport`).
final class HTTPOriginOverPushedBodiesTests: HTTPOriginTests {
    override var transport: OriginTransport { .pushedBodies }

    override func testContentInformationFromHead() async throws {
        try await super.testContentInformationFromHead()
    }

    override func testRefusedHeadFallsBackToATwoByteRange() async throws {
        try await super.testRefusedHeadFallsBackToATwoByteRange()
    }

    override func testLowercaseHeaderNamesAndNoContentLength() async throws {
        try await super.testLowercaseHeaderNamesAndNoContentLength()
    }

    override func testRedirectIsFollowedAndRememberedUnderTheOriginalKey() async throws {
        try await super.testRedirectIsFollowedAndRememberedUnderTheOriginalKey()
    }

    override func testRedirectKeepsRangeValidatorAndSameHostCredentials() async throws {
        try await super.testRedirectKeepsRangeValidatorAndSameHostCredentials()
    }

    override func testCredentialsNeverFollowARedirectToAnotherHost() async throws {
        try await super.testCredentialsNeverFollowARedirectToAnotherHost()
    }

    override func testEndlessRedirectsFailAfterTheHopLimit() async throws {
        try await super.testEndlessRedirectsFailAfterTheHopLimit()
    }

    override func testModifierHeadersReachEveryRequestAndNeverTheDisk() async throws {
        try await super.testModifierHeadersReachEveryRequestAndNeverTheDisk()
    }

    override func testAppSuppliedCacheKey() async throws {
        try await super.testAppSuppliedCacheKey()
    }

    override func testUnsupportedSchemesAndUnreachableOrigins() async throws {
        try await super.testUnsupportedSchemesAndUnreachableOrigins()
    }

    override func testRangeNotSatisfiable() async throws {
        try await super.testRangeNotSatisfiable()
    }

    override func testSilentOriginTimesOut() async throws {
        try await super.testSilentOriginTimesOut()
    }

    override func testStalledBodyTimesOut() async throws {
        try await super.testStalledBodyTimesOut()
    }

    override func testCancellingTheCallerBeforeTheHeadThrowsCancellationError() async throws {
        try await super.testCancellingTheCallerBeforeTheHeadThrowsCancellationError()
    }

    override func testAReadCancelledBeforeItStartsEndsAtOnceWithoutARequest() async throws {
        try await super.testAReadCancelledBeforeItStartsEndsAtOnceWithoutARequest()
    }

    override func testDroppingABodyClosesItsConnection() async throws {
        try await super.testDroppingABodyClosesItsConnection()
    }
}
