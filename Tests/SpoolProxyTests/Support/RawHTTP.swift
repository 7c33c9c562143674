import Foundation
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
        let socket = try connectedSocket(port: port)
        defer { close(socket) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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

    static func connectedSocket(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketFailure(description: "socket() failed") }
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            throw SocketFailure(description: "connect to port \(port) failed")
        }
        return socket
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
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
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = RawHTTP.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw SocketFailure(description: "cannot listen") }
        socket = descriptor
        port = Self.port(of: descriptor)
    }

    func close() {
        _ = Glibc.close(socket)
    }

    /// A loopback port nothing listens on: bound, read and released.
    static func unusedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(socket) }
        var address = RawHTTP.loopback(port: 0)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return port(of: socket)
    }

    private static func port(of socket: Int32) -> Int {
        var address = sockaddr_in()
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &size) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
