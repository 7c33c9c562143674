import Foundation
import SpoolTesting
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class BasicsTests: XCTestCase {
    func testGetServesFullBodyWithValidators() async throws {
        let origin = try makeOrigin()
        let body = countingBytes(1000)
        origin.serve(.data(body), at: "/media/song.mp3", contentType: "audio/mpeg")

        let (data, response) = try await Fetch.data(origin.url(for: "/media/song.mp3"))
        XCTAssertEqual(response.statusCode, 200)
        XCTAssertEqual(data, body)
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Type"), "audio/mpeg")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Content-Length"), "1000")
        XCTAssertEqual(response.value(forHTTPHeaderField: "Accept-Ranges"), "bytes")
        XCTAssertNotNil(response.value(forHTTPHeaderField: "ETag"))
        XCTAssertNotNil(response.value(forHTTPHeaderField: "Last-Modified"))
        XCTAssertNotNil(response.value(forHTTPHeaderField: "Date"))
        XCTAssertEqual(origin.baseURL.absoluteString, "http://127.0.0.1:\(origin.port)")
    }

    func testHeadSendsSameHeadersWithoutBody() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(500)), at: "/a")
        let get = try RawHTTPClient.fetch(port: origin.port, path: "/a")
        let client = try RawHTTPClient(port: origin.port)
        client.send("HEAD /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let raw = client.readToEnd()
        let head = try XCTUnwrap(RawHTTPClient.parseAll(raw, headOnly: true).first)

        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(raw.suffix(4) == Data("\r\n\r\n".utf8), "HEAD must not carry a body")
        for name in ["Content-Length", "Content-Type", "Accept-Ranges", "ETag", "Last-Modified"] {
            XCTAssertEqual(head.header(name), get.header(name), name)
        }
        XCTAssertEqual(origin.requests.last?.bodyBytesSent, 0)
    }

    func testKeepAliveServesPipelinedRequestsOnOneConnection() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(10)), at: "/a")
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\nRange: bytes=2-3\r\n\r\n")
        client.send("GET /missing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let responses = RawHTTPClient.parseAll(client.readToEnd())

        XCTAssertEqual(responses.map(\.status), [200, 206, 404])
        guard responses.count == 3 else { return }
        XCTAssertEqual(responses.first?.body, countingBytes(10))
        XCTAssertEqual(responses[1].body, Data([2, 3]))
        XCTAssertEqual(responses.last?.header("Connection"), "close")
        XCTAssertEqual(origin.requestCount, 3)
    }

    func testUnknownPathIs404AndOtherMethodsAre405() throws {
        let origin = try makeOrigin()
        origin.serve(.data(Data("x".utf8)), at: "/a")
        XCTAssertEqual(try RawHTTPClient.fetch(port: origin.port, path: "/nope").status, 404)
        let post = try RawHTTPClient.fetch(
            port: origin.port, method: "POST", path: "/a", headers: ["Content-Length": "0"]
        )
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD")
        XCTAssertEqual(origin.requests.map(\.method), ["GET", "POST"])
    }

    func testOversizedHeadIsRejectedAndClosed() throws {
        let origin = try makeOrigin()
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 70 * 1024))\r\n\r\n")
        let response = try XCTUnwrap(RawHTTPClient.parseAll(client.readToEnd()).first)
        XCTAssertEqual(response.status, 431)
    }

    func testQueryStringIsIgnoredForLookupAndHeadersAreRecordedLowercased() throws {
        let origin = try makeOrigin()
        origin.serve(.data(countingBytes(4)), at: "/a")
        let response = try RawHTTPClient.fetch(port: origin.port, path: "/a?x=1", headers: ["X-Custom": "Yes"])
        XCTAssertEqual(response.status, 200)
        let record = try XCTUnwrap(origin.requests.first)
        XCTAssertEqual(record.path, "/a")
        XCTAssertEqual(record.headers["x-custom"], "Yes")
        XCTAssertEqual(record.responseStatus, 200)
    }

    func testStopClosesIdleConnectionsPromptlyAndIsIdempotent() throws {
        let origin = try TestOrigin()
        origin.serve(.data(countingBytes(4)), at: "/a")
        let client = try RawHTTPClient(port: origin.port)
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")  // keep-alive: the server waits for more
        XCTAssertTrue(eventually { origin.requests.count == 1 }, "the request was answered")
        // The client never closes: a stop that waited for it would never return.
        XCTAssertTrue(returns { origin.stop() }, "stop closed the idle connection instead of waiting for it")
        origin.stop()
        XCTAssertEqual(RawHTTPClient.parseAll(client.readToEnd()).first?.status, 200)
        XCTAssertThrowsError(try RawHTTPClient(port: origin.port))
    }
}
