import Foundation
import SpoolTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking HTTP/1.1 client that reads the way a player does: it asks for a range (usually
/// `bytes=N-`, to the end), takes the first `limit` bytes of the body and hangs up, leaving the rest
/// unread as AVPlayer does when it cancels a loading request.
///
/// curl cannot do this: `--max-filesize` refuses a response whose length is known instead of cutting it.
struct RangeReader: Sendable {
    /// What one request received.
    struct Transfer: Sendable {
        var status: Int
        var bodyBytes: Int64
        /// Seconds from connecting to the first byte of the response head.
        var firstByte: Double
        /// Seconds from connecting to hanging up.
        var total: Double
        /// Seconds from connecting to the first body byte, if any came.
        var firstBodyByte: Double?
        /// Seconds from connecting until the body reached each of the `marks` asked for (`nil`: never).
        var markTimes: [Double?] = []
        /// The longest wait for a byte: from connecting to the first, or between two receives.
        var longestGap: Double = 0
    }

    let port: Int
    /// Seconds without a byte after which a read fails.
    var timeout: Int = 30
    /// The receive buffer: 1 MiB lets one client read loopback at several GB/s, where curl tops out earlier.
    var bufferSize = 1 << 20

    /// GETs `target` (path and query), with `Range: range` when given, reading at most `limit` body bytes
    /// (the whole body without one).
    func get(_ target: String, range: String?, limit: Int64?, marks: [Int64] = []) throws -> Transfer {
        let start = DispatchTime.now().uptimeNanoseconds
        let fd = try connectLoopback()
        defer { close(fd) }
        let rangeField = range.map { "Range: \($0)\r\n" } ?? ""
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\(rangeField)Connection: close\r\n\r\n"
        try sendAll(fd, Array(request.utf8))
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        var head: [UInt8] = []
        var firstByte: Double?
        var body: Int64 = 0
        var status = 0
        var headDone = false
        var firstBodyByte: Double?
        var markTimes = [Double?](repeating: nil, count: marks.count)
        func noteBody() {
            guard body > 0 else { return }
            let now = Self.seconds(since: start)
            if firstBodyByte == nil { firstBodyByte = now }
            for (index, mark) in marks.enumerated() where markTimes[index] == nil && body >= mark {
                markTimes[index] = now
            }
        }
        var wanted = limit
        var lastReceive = 0.0
        var longestGap = 0.0
        while wanted.map({ body < $0 }) ?? true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            let now = Self.seconds(since: start)
            longestGap = max(longestGap, now - lastReceive)
            lastReceive = now
            guard count > 0 else {
                if count < 0 { throw failure("recv: \(String(cString: strerror(errno)))") }
                break
            }
            if firstByte == nil { firstByte = Self.seconds(since: start) }
            if headDone {
                body += Int64(count)
                noteBody()
                continue
            }
            head += buffer[0..<count]
            guard let end = Self.endOfHead(head) else { continue }
            status = Self.status(of: head)
            headDone = true
            // Stop at the end of the body even if the server keeps the connection open.
            if let length = Self.contentLength(of: head[..<end]) { wanted = min(wanted ?? length, length) }
            body += Int64(head.count - end)
            noteBody()
        }
        guard headDone else { throw failure("the connection closed before a response head") }
        return Transfer(
            status: status, bodyBytes: wanted.map { min(body, $0) } ?? body, firstByte: firstByte ?? 0,
            total: Self.seconds(since: start), firstBodyByte: firstBodyByte, markTimes: markTimes,
            longestGap: longestGap)
    }

    /// The request target (path and query, as encoded) of `url`.
    static func target(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "/"
        return (path.isEmpty ? "/" : path) + (url.query.map { "?" + $0 } ?? "")
    }

    private func connectLoopback() throws -> Int32 {
        do {
            return try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: timeout)
        } catch {
            throw failure("\(error)")
        }
    }

    private func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        guard POSIXSocket.sendAll(fd, Data(bytes)) == bytes.count else {
            throw failure("send: \(String(cString: strerror(errno)))")
        }
    }

    private func failure(_ text: String) -> CommandFailure {
        CommandFailure(message: "bench client: \(text)")
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }

    /// The `Content-Length` of a response head, if it has one.
    private static func contentLength(of head: ArraySlice<UInt8>) -> Int64? {
        let text = String(decoding: head, as: UTF8.self)
        for line in text.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            return Int64(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// The status code of `HTTP/1.1 206 Partial Content`.
    private static func status(of head: [UInt8]) -> Int {
        let line = String(decoding: head.prefix(64), as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    private static func seconds(since start: UInt64) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
