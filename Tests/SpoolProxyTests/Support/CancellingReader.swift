import Foundation
import SpoolTesting

#if canImport(Glibc)
import Glibc
#endif

/// Reads the way a player abandons a request: sends one GET, takes the first `played` bytes of the body
/// and closes the socket with whatever else arrived unread.
enum CancellingReader {
    /// The status and the first `played` body bytes of `GET target` with `Range: range` on 127.0.0.1:`port`.
    static func read(port: Int, target: String, range: String, played: Int) async throws -> (status: Int, body: Data) {
        try await offPool { try readBlocking(port: port, target: target, range: range, played: played) }
    }

    private static func readBlocking(port: Int, target: String, range: String, played: Int) throws -> (
        status: Int, body: Data
    ) {
        let socket = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 30)
        defer { close(socket) }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nRange: \(range)\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            throw SocketFailure(description: "send failed")
        }
        var received = Data()
        var headEnd: Int?
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while headEnd.map({ received.count - $0 < played }) ?? true {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else {
                throw SocketFailure(description: "the connection ended after \(received.count) bytes")
            }
            received.append(contentsOf: buffer[0..<count])
            if headEnd == nil, let end = received.range(of: Data("\r\n\r\n".utf8))?.upperBound {
                headEnd = end - received.startIndex
            }
        }
        let head = String(decoding: received.prefix(headEnd!), as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = received.dropFirst(headEnd!).prefix(played)
        return (status, Data(body))
    }
}
