import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the BSD socket calls the origin and raw-socket clients need, hiding Glibc/Darwin
/// differences.
public enum POSIXSocket {
    /// A failed system call, with `errno` kept for the message.
    public struct Failure: Error, CustomStringConvertible {
        let operation: String
        let code: Int32

        /// The call, the error's text and its number.
        public var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    // Linux has no per-socket SIGPIPE switch, so every send asks for no signal.
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    /// 127.0.0.1 in network byte order.
    private static let loopback = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = loopback
        return address
    }

    /// Opens a listening socket on 127.0.0.1; port 0 lets the kernel choose a free one. `bufferBytes` sets
    /// the kernel send and receive buffers, which accepted connections inherit.
    public static func listenOnLoopback(
        port: UInt16 = 0, backlog: Int32 = 128, bufferBytes: Int? = nil
    ) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        if let bufferBytes { setBufferSizes(fd, bytes: bufferBytes) }
        var address = loopbackAddress(port: port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "bind", code: code)
        }
        guard listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "listen", code: code)
        }
        do {
            return (fd, try boundPort(of: fd))
        } catch {
            close(fd)
            throw error
        }
    }

    /// Reads back the port the kernel assigned (needed after binding port 0).
    static func boundPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw Failure(operation: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Waits until `fd` is readable (or has an error) for at most `milliseconds`.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }

    /// Accepts one connection and configures it; nil when nothing was pending or accept failed.
    static func acceptConnection(_ listener: Int32) -> Int32? {
        let fd = accept(listener, nil, nil)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        // Headers and body go out in separate writes; Nagle plus delayed ACK would stall them.
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return fd
    }

    /// Sets connection `fd`'s kernel send buffer to `bytes` (`SO_SNDBUF`; Linux doubles it for its bookkeeping).
    static func setSendBuffer(_ fd: Int32, bytes: Int) {
        var size = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all of `data`; returns how many bytes the kernel accepted before any error.
    public static func sendAll(_ fd: Int32, _ data: Data) -> Int {
        data.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            var written = 0
            while written < raw.count {
                let result = send(fd, base + written, raw.count - written, sendFlags)
                if result > 0 {
                    written += result
                } else if result < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return written
        }
    }

    /// Reads up to `limit` bytes: the bytes read, or nil at end of stream or on error.
    static func receive(_ fd: Int32, limit: Int = 16 * 1024) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let result = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, limit, 0) }
            if result > 0 { return Array(buffer[0..<result]) }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Unblocks any thread reading or writing `fd` without releasing the descriptor number.
    static func shutdownBoth(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Sends FIN so the peer sees a clean end of stream before the descriptor is closed.
    static func shutdownWrite(_ fd: Int32) {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// A blocking TCP connection to 127.0.0.1:`port` whose reads and writes fail after `timeoutSeconds`
    /// without progress (0: never); `bufferBytes` sets the kernel send and receive buffers. The caller closes it.
    public static func connectToLoopback(port: Int, timeoutSeconds: Int, bufferBytes: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        // Before connect, so the window the kernel advertises is sized from the small buffer.
        if let bufferBytes { setBufferSizes(fd, bytes: bufferBytes) }
        var wait = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = loopbackAddress(port: UInt16(port))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(operation: "connect to port \(port)", code: code)
        }
        return fd
    }

    /// True when something accepts TCP connections on 127.0.0.1:`port`.
    static func canConnect(port: Int) -> Bool {
        guard let fd = try? connectToLoopback(port: port, timeoutSeconds: 5) else { return false }
        close(fd)
        return true
    }
}
