import Foundation
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed response as it appeared on the wire, header names kept exactly as sent.
struct RawResponse {
    var status: Int
    /// Header lines in order, names as sent.
    var headerLines: [(name: String, value: String)]
    var body: Data
    var rawHead: String

    /// Case-insensitive header lookup.
    func header(_ name: String) -> String? {
        headerLines.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A minimal blocking HTTP client over a raw socket, so tests can see exact header spelling,
/// truncated bodies and connection behaviour that URLSession hides.
final class RawHTTPClient {
    let fd: Int32

    init(port: Int, receiveTimeout: Int = 5) throws {
        fd = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: receiveTimeout)
    }

    deinit { close(fd) }

    func send(_ text: String) {
        _ = POSIXSocket.sendAll(fd, Data(text.utf8))
    }

    /// Reads until the peer closes (or the receive timeout passes).
    func readToEnd() -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Sends one request with `Connection: close` and parses the whole reply.
    static func fetch(
        port: Int, method: String = "GET", path: String, headers: [String: String] = [:]
    ) throws -> RawResponse {
        let client = try RawHTTPClient(port: port)
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        client.send(text + "\r\n")
        let responses = parseAll(client.readToEnd(), headOnly: method == "HEAD")
        return try XCTUnwrap(responses.first, "no response")
    }

    /// Splits a stream into responses; the last one takes the rest when it has no length.
    static func parseAll(_ data: Data, headOnly: Bool = false) -> [RawResponse] {
        var responses: [RawResponse] = []
        var rest = data[...]
        let separator = Data("\r\n\r\n".utf8)
        while let end = rest.range(of: separator) {
            let head = String(decoding: rest[rest.startIndex..<end.lowerBound], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let status = Int(lines[0].split(separator: " ")[1]) ?? 0
            let fields = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
            var response = RawResponse(status: status, headerLines: fields, body: Data(), rawHead: head)
            var bodyEnd = rest.endIndex
            if headOnly || status == 304 {
                bodyEnd = end.upperBound
            } else if let length = response.header("Content-Length").flatMap(Int.init) {
                bodyEnd = min(rest.endIndex, end.upperBound + length)
            }
            response.body = Data(rest[end.upperBound..<bodyEnd])
            responses.append(response)
            rest = rest[bodyEnd...]
        }
        return responses
    }
}
