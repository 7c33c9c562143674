import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class BehaviourTests: XCTestCase {
    private func origin(serving count: Int = 1000) throws -> TestOrigin {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(count)), at: "/f")
        return origin
    }

    func testIgnoresRangeSendsFullBodyWithoutAcceptRanges() throws {
        let origin = try origin()
        origin.behaviour.ignoresRange = true
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f", headers: ["Range": "bytes=0-9"])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, countingBytes(1000))
        XCTAssertNil(response.header("Accept-Ranges"))
        XCTAssertNil(response.header("Content-Range"))
    }

    func testRefusesHead() throws {
        let origin = try origin()
        origin.behaviour.refusesHead = true
        XCTAssertEqual(try RawHTTPClient.fetch(port: origin.port, method: "HEAD", path: "/f").status, 405)
        XCTAssertEqual(try RawHTTPClient.fetch(port: origin.port, path: "/f").status, 200)
    }

    func testRedirectIsFollowedAndBothRequestsCount() async throws {
        let origin = try origin()
        origin.behaviour.redirect = true
        let raw = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        XCTAssertEqual(raw.status, 302)
        XCTAssertEqual(raw.header("Location"), "http://127.0.0.1:\(origin.port)/__redirected__/f")
        origin.resetCounters()

        let (data, response) = try await Fetch.data(origin.url(for: "/f"))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(data, countingBytes(1000))
        XCTAssertEqual(origin.requestCount, 2)
        XCTAssertEqual(origin.requests.map(\.path), ["/f", "/__redirected__/f"])
        XCTAssertEqual(origin.requests.map(\.responseStatus), [302, 200])
    }

    func testRedirectToAnotherHostKeepsThePort() throws {
        let origin = try origin()
        origin.behaviour.redirect = true
        origin.behaviour.redirectHost = "localhost"
        let raw = try RawHTTPClient.fetch(port: origin.port, path: "/f?x=1")
        XCTAssertEqual(raw.status, 302)
        XCTAssertEqual(raw.header("Location"), "http://localhost:\(origin.port)/__redirected__/f?x=1")
    }

    func testRedirectToItselfNeverEnds() throws {
        let origin = try origin()
        origin.behaviour.redirectsToItself = true
        for path in ["/f", "/__redirected__/f", "/missing"] {
            let raw = try RawHTTPClient.fetch(port: origin.port, path: path)
            XCTAssertEqual(raw.status, 302)
            XCTAssertEqual(raw.header("Location"), "http://127.0.0.1:\(origin.port)\(path)")
        }
    }

    func testAnswerDelayHoldsTheResponseBack() throws {
        let origin = try origin()
        origin.behaviour.answerDelay = 0.4
        let start = Date()
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.4)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, countingBytes(1000))
    }

    func testStallAfterBytesKeepsTheConnectionOpenAndSilent() throws {
        let origin = try origin()
        origin.behaviour.stallAfterBytes = 300
        let client = try RawHTTPClient(port: origin.port, receiveTimeout: 1)
        client.send("GET /f HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        let start = Date()
        let response = try XCTUnwrap(RawHTTPClient.parseAll(client.readToEnd()).first)
        XCTAssertGreaterThanOrEqual(
            Date().timeIntervalSince(start), 0.9, "ended by the receive timeout, not by the origin")
        XCTAssertEqual(response.header("Content-Length"), "1000")
        XCTAssertEqual(response.body, countingBytes(300))
        XCTAssertEqual(origin.openConnectionCount, 1)
    }

    func testDropConnectionAfterBytes() throws {
        let origin = try origin()
        origin.behaviour.dropConnectionAfterBytes = 300
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Length"), "1000")
        XCTAssertEqual(response.body, countingBytes(300))
        XCTAssertTrue(eventually { origin.bodyBytesSent == 300 })
    }

    func testThrottleSlowsTransfer() throws {
        let origin = try makeOrigin()
        origin.serve(.generated(length: 200_000, seed: 1), at: "/g")
        origin.behaviour.throttleBytesPerSecond = 500_000
        let started = Date()
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/g")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(response.body.count, 200_000)
        // A lower bound: a busy machine can only make the transfer slower.
        XCTAssertGreaterThan(elapsed, 0.3, "200 kB at 500 kB/s should take about 0.4 s")

        origin.behaviour.throttleBytesPerSecond = nil
        XCTAssertEqual(try RawHTTPClient.fetch(port: origin.port, path: "/g").body.count, 200_000)
    }

    func testServerErrorStatusForEveryRequest() throws {
        let origin = try origin()
        origin.behaviour.serverErrorStatus = 503
        for path in ["/f", "/unknown"] {
            let response = try RawHTTPClient.fetch(port: origin.port, path: path)
            XCTAssertEqual(response.status, 503)
            XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "Service Unavailable\n")
        }
        origin.behaviour.serverErrorStatus = nil
        XCTAssertEqual(try RawHTTPClient.fetch(port: origin.port, path: "/f").status, 200)
    }

    func testLowercaseHeaderNamesOnTheWire() throws {
        let origin = try origin()
        origin.behaviour.lowercaseHeaderNames = true
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f", headers: ["Range": "bytes=0-1"])
        XCTAssertTrue(response.rawHead.contains("\r\ncontent-range: bytes 0-1/1000"), response.rawHead)
        XCTAssertTrue(response.rawHead.contains("\r\ncontent-length: 2"))
        XCTAssertTrue(response.rawHead.contains("\r\netag: "))
        XCTAssertFalse(response.rawHead.contains("Content-"))
    }

    func testOmitsContentLengthDelimitsBodyByClose() async throws {
        let origin = try origin()
        origin.behaviour.omitsContentLength = true
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        XCTAssertNil(response.header("Content-Length"))
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(response.body, countingBytes(1000))

        let (data, _) = try await Fetch.data(origin.url(for: "/f"))
        XCTAssertEqual(data, countingBytes(1000))
    }

    func testShortBodyAnnouncesFullLengthThenCloses() throws {
        let origin = try origin()
        origin.behaviour.shortBodyBy = 100
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/f")
        XCTAssertEqual(response.header("Content-Length"), "1000")
        XCTAssertEqual(response.body, countingBytes(900))
        XCTAssertTrue(eventually { origin.requests.first?.bodyBytesSent == 900 })
    }

    func testBehaviourChangeAppliesToLaterRequestsOnSameConnection() throws {
        let origin = try origin()
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET /f HTTP/1.1\r\nHost: x\r\nRange: bytes=0-0\r\n\r\n")
        XCTAssertTrue(eventually { origin.requests.first?.responseStatus == 206 })
        origin.behaviour.serverErrorStatus = 500
        client.send("GET /f HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(RawHTTPClient.parseAll(client.readToEnd()).map(\.status), [206, 500])
    }
}
