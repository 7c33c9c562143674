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

    /// `exchange`, returning the bytes as they came (at most 1 MiB).
    static func exchangeBytes(port: Int, _ request: String) async throws -> Data {
        try await offPool { Data(try exchangeBlocking(port: port, request, limit: 1 << 20)) }
    }

    private static func exchangeBlocking(port: Int, _ request: String) throws -> String {
        String(decoding: try exchangeBlocking(port: port, request, limit: 65536), as: UTF8.self)
    }

    private static func exchangeBlocking(port: Int, _ request: String, limit: Int) throws -> [UInt8] {
        let socket = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 10)
        defer { close(socket) }
        let bytes = Array(request.utf8)
        guard send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw SocketFailure(description: "send failed")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < limit {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
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
