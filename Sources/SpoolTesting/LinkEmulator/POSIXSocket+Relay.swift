import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Non-blocking calls for the link emulator's relay, which waits in `poll` itself so it can keep time and
/// notice faults instead of sitting in a blocking `recv` or `send`.
extension POSIXSocket {
    /// What a non-blocking read found.
    enum Received {
        case bytes([UInt8])
        case nothingYet
        case end
        case failed
    }

    /// Sets the kernel send and receive buffers; Linux doubles the figure for its own bookkeeping.
    static func setBufferSizes(_ fd: Int32, bytes: Int) {
        var size = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Sends every write at once: the link's own timing must not be blurred by Nagle's algorithm waiting for
    /// an acknowledgement.
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next `close` abortive: the peer gets a reset instead of an orderly end of stream.
    static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Reads up to `limit` bytes without waiting.
    static func receiveNow(_ fd: Int32, limit: Int) -> Received {
        var buffer = [UInt8](repeating: 0, count: limit)
        while true {
            let result = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, limit, Int32(MSG_DONTWAIT)) }
            if result > 0 { return .bytes(Array(buffer[0..<result])) }
            if result == 0 { return .end }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .nothingYet
            default: return .failed
            }
        }
    }

    /// Writes what the kernel takes now from `bytes[offset...]`: the count written (0 when the buffer is
    /// full), or nil when the connection failed.
    static func sendNow(_ fd: Int32, _ bytes: [UInt8], from offset: Int) -> Int? {
        let remaining = bytes.count - offset
        guard remaining > 0 else { return 0 }
        while true {
            let result = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + offset, remaining, sendFlags | Int32(MSG_DONTWAIT))
            }
            if result >= 0 { return result }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: return nil
            }
        }
    }

    /// Waits up to `milliseconds` until `readFD` is readable or `writeFD` writable (either may be nil);
    /// an error or hang-up on a socket counts as ready, so the next call on it reports the failure.
    static func wait(
        readable readFD: Int32?, writable writeFD: Int32?, milliseconds: Int32
    ) -> (readable: Bool, writable: Bool) {
        var entries: [pollfd] = []
        if let readFD { entries.append(pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)) }
        if let writeFD { entries.append(pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)) }
        guard !entries.isEmpty else {
            usleep(UInt32(max(0, milliseconds)) * 1000)
            return (false, false)
        }
        guard poll(&entries, nfds_t(entries.count), milliseconds) > 0 else { return (false, false) }
        let ready = entries.map { $0.revents != 0 }
        return (readFD != nil && ready[0], writeFD != nil && ready[entries.count - 1])
    }
}
