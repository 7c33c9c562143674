import NIOCore

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound and listening, made with system calls rather than by NIO's bootstrap, so that it
/// listens before the call returns: a URL handed out right after names a port the kernel already accepts
/// connections on (they wait in the backlog until the event loop takes the socket over).
///
/// Binding and listening on an address resolved beforehand never wait on the network or the disk, which is
/// why `ProxyListener` may call this while it holds its lock: deciding, binding and recording the outcome is
/// one step, and no caller ever sees a listener half rebound.
enum ListeningSocket {
    /// Why no socket was bound.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// Another socket listens on the address and port.
        case addressInUse
        /// Anything else, with the system's words.
        case other(String)

        /// What happened and what to do, for the proxy's errors and `spool serve`'s message.
        var description: String {
            switch self {
            case .addressInUse: "the port is taken by another program (choose another port, or 0 for a free one)"
            case .other(let reason): reason
            }
        }
    }

    /// How many connections wait in the kernel's queue before the event loop accepts them.
    static let backlog: CInt = 256

    /// Binds a new socket to `address` with `port` (`0` for any free port) and listens. Returns the
    /// descriptor, which the caller owns, and the port bound.
    static func bind(_ address: SocketAddress, port: Int) -> Result<(descriptor: CInt, port: Int), Failure> {
        var address = address
        address.port = port
        #if canImport(Darwin)
        let stream = SOCK_STREAM
        #else
        let stream = CInt(SOCK_STREAM.rawValue)
        #endif
        let descriptor = socket(CInt(address.protocol.rawValue), stream, 0)
        guard descriptor >= 0 else { return .failure(.other(errorText("socket"))) }
        var on: CInt = 1
        // Connections of the lost socket may still be open on this port: without it the port stays taken.
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<CInt>.size))
        let bound = address.withSockAddr { pointer, size in
            systemBind(descriptor, pointer, socklen_t(size))
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let failure: Failure =
                switch errno {
                case EADDRINUSE: .addressInUse
                case EADDRNOTAVAIL:
                    .other(
                        "no network interface of this machine has that address (listen on one of its own, 127.0.0.1 by default)"
                    )
                case EACCES: .other("ports below 1024 need privileges (choose a port above 1023, or 0 for a free one)")
                default: .other(errorText("bind"))
                }
            close(descriptor)
            return .failure(failure)
        }
        guard let boundPort = localPort(of: descriptor) else {
            close(descriptor)
            return .failure(.other("the bound port cannot be read"))
        }
        return .success((descriptor, boundPort))
    }

    /// Whether the socket still takes connections (`SO_ACCEPTCONN`): one system call that never waits. A
    /// socket shut down under its owner, or closed, says no; whether iOS clears it on a reclaimed socket is not
    /// known, which is what `ensureListening()`'s ping is for.
    static func isListening(_ descriptor: CInt) -> Bool {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &value, &length) == 0 else { return false }
        return value != 0
    }

    /// Closes a descriptor `bind` returned that no channel took over.
    static func discard(_ descriptor: CInt) {
        close(descriptor)
    }

    /// Shuts a listening socket down under whoever owns it, as the system does to a suspended app's socket:
    /// it stops taking connections, and the next accept fails. For tests only.
    static func shutDown(_ descriptor: CInt) {
        #if canImport(Darwin)
        shutdown(descriptor, SHUT_RDWR)
        #else
        shutdown(descriptor, CInt(SHUT_RDWR))
        #endif
    }

    private static func localPort(of descriptor: CInt) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let read = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard read == 0 else { return nil }
        switch CInt(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    private static func errorText(_ call: String) -> String {
        "\(call): \(String(cString: strerror(errno)))"
    }
}

/// The system's `bind`, which `ListeningSocket.bind` shadows.
private func systemBind(_ descriptor: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
    #if canImport(Darwin)
    Darwin.bind(descriptor, address, length)
    #else
    Glibc.bind(descriptor, address, length)
    #endif
}
