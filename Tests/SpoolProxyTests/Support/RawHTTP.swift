import Foundation
import SpoolTesting

#if canImport(Glibc)
import Glibc
#endif

/// Bytes on a plain TCP socket, for requests no HTTP client would send.
enum RawHTTP {
    /// Sends `request` to 127.0.0.1:`port` and returns what comes back until the server closes (at most
    /// 64 KiB, at most 10 s).
    static func exchange(port: Int, _ request: String) async throws -> String {
        try await offPool { try exchangeBlocking(port: port, request) }
    }

    private static func exchangeBlocking(port: Int, _ request: String) throws -> String {
        let socket = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 10)
        defer { close(socket) }
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw SocketFailure(description: "send failed")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < 65536 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

struct SocketFailure: Error, CustomStringConvertible {
    var description: String
}

/// A socket that listens on loopback and never accepts: the kernel completes connections into its backlog,
/// so a client connects and then waits for an answer that never comes (an origin that hangs).
final class SilentListener: Sendable {
    let port: Int
    private let socket: Int32

    init() throws {
        (socket, port) = try POSIXSocket.listenOnLoopback(backlog: 16)
    }

    func close() {
        _ = Glibc.close(socket)
    }

    /// A loopback port nothing listens on: bound, read and released.
    static func unusedPort() throws -> Int {
        let (socket, port) = try POSIXSocket.listenOnLoopback()
        Glibc.close(socket)
        return port
    }
}
