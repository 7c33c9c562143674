import Foundation
import Spool
import SpoolTesting
import XCTest

@testable import SpoolProxy

#if canImport(Glibc)
import Glibc
#endif

/// HTTP an attacker bends, sent with raw sockets while a real client plays: request smuggling, folded and bare
/// line ends, oversized heads, paths that climb out, origins that are no http(s), and floods of idle and slow
/// connections. Each gets a clear status or a closed connection, no origin request and no file outside the
/// cache, and the real client is served meanwhile.
final class HostileClientTests: XCTestCase {
    private let seed: UInt64 = 77
    private let length: Int64 = 200_000

    func testBentRequestsGetAClearStatusOrACloseAndNothingElse() async throws {
        let key = ProxyURLKey()
        let fixture = try await ProxyFixture(test: self, configuration: ProxyConfiguration(urlKey: key))
        try fixture.serveGenerated("song.mp3", length: length, seed: seed)
        let url = try fixture.proxyURL("song.mp3")
        let port = try XCTUnwrap(url.port)
        // Every attack asks to close, so that its answer ends with the connection.
        let host = "Host: 127.0.0.1:\(port)\r\nConnection: close"
        let target = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        let base = String(target.dropLast("song.mp3".count))
        // What a smuggled second request would ask for: it must never be answered.
        let smuggled = "GET \(target) HTTP/1.1\r\n\(host)\r\nRange: bytes=0-0\r\n\r\n"

        // The real client, playing throughout.
        let seed = self.seed
        let player = Task { [url] in
            var plays = 0
            while !Task.isCancelled, plays < 200 {
                let played = try await Curl.fetch(url, ["--range", "1000-1999"])
                guard played.status == 206, played.body == TestContent.generatedBytes(seed: seed, range: 1000..<2000)
                else { throw SocketFailure(description: "the player got \(played.status)") }
                plays += 1
            }
            return plays
        }

        // Heads too large may be cut off with a close before their answer is read (the client is still sending).
        let mayJustClose: Set<String> = ["a 1 MB header block", "a 100 KB request line", "50 000 fields"]
        let attacks: [(label: String, request: String, statuses: Set<Int>)] = [
            (
                "Content-Length with Transfer-Encoding",
                "GET \(target) HTTP/1.1\r\n\(host)\r\nContent-Length: \(smuggled.utf8.count + 5)\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n\(smuggled)", [400]
            ),
            (
                "two Content-Lengths",
                "GET \(target) HTTP/1.1\r\n\(host)\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
                [400]
            ),
            (
                "obs-fold", "GET \(target) HTTP/1.1\r\n\(host)\r\nX-Folded: a\r\n b\r\nRange: bytes=0-0\r\n\r\n",
                [400]
            ),
            ("bare CR", "GET \(target) HTTP/1.1\r\(host)\r\nRange: bytes=0-0\r\n\r\n", [400]),
            ("bare LF in a field", "GET \(target) HTTP/1.1\r\n\(host)\nX: y\r\n\r\n", [400]),
            (
                "a 1 MB header block",
                "GET \(target) HTTP/1.1\r\n\(host)\r\nX-Big: \(String(repeating: "a", count: 1 << 20))\r\n\r\n", [400]
            ),
            (
                "a 100 KB request line", "GET /o/\(String(repeating: "A", count: 100_000)) HTTP/1.1\r\n\(host)\r\n\r\n",
                [400]
            ),
            (
                "50 000 fields",
                "GET \(target) HTTP/1.1\r\n\(host)\r\n" + String(repeating: "X: y\r\n", count: 50_000) + "\r\n", [400]
            ),
            ("dot segments", "GET \(base)../secret.mp3 HTTP/1.1\r\n\(host)\r\n\r\n", [400]),
            ("encoded dot segments", "GET \(base)%2e%2e/secret.mp3 HTTP/1.1\r\n\(host)\r\n\r\n", [400]),
            ("encoded slashes", "GET \(base)a%2F..%2F..%2Fsecret.mp3 HTTP/1.1\r\n\(host)\r\n\r\n", [400]),
            ("a path outside the proxy's", "GET /../../etc/passwd HTTP/1.1\r\n\(host)\r\n\r\n", [401]),
            ("a proxy path with no proof", "GET /o/../../etc/passwd HTTP/1.1\r\n\(host)\r\n\r\n", [403]),
        ]
        for attack in attacks {
            let answer = try await Self.attack(port: port, attack.request)
            let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
            XCTAssertLessThanOrEqual(statuses.count, 1, "\(attack.label): one answer at most, no smuggled one")
            if let status = statuses.first {
                XCTAssertTrue(attack.statuses.contains(status), "\(attack.label): \(answer.prefix(300))")
            } else {
                XCTAssertTrue(mayJustClose.contains(attack.label), "\(attack.label): no answer")
            }
            XCTAssertFalse(answer.contains("root:"), attack.label)
        }

        // Origins that are no http(s), even under a proof this proxy made: refused without a request.
        for origin in ["file:///etc/passwd", "gopher://127.0.0.1:\(port)/x", "ftp://127.0.0.1/a.mp3"] {
            let encoded = ProxyURLMapping.base64URL(origin)
            let path = "/o/\(URLSigner(key: key).proof(for: Substring(encoded), kind: "o"))/\(encoded)/x"
            let answer = try await Self.attack(port: port, "GET \(path) HTTP/1.1\r\n\(host)\r\n\r\n")
            XCTAssertTrue(answer.hasPrefix("HTTP/1.1 400"), "\(origin) \(path): \(answer.prefix(200))")
            XCTAssertFalse(answer.contains("root:"), origin)
        }

        let plays = try await player.value
        XCTAssertGreaterThan(plays, 0)
        let paths = try fixture.nginx.accessLog().map(\.path)
        XCTAssertTrue(paths.allSatisfy { $0 == "/song.mp3" }, "only the player's file was fetched: \(paths)")
        let names = try FileManager.default.subpathsOfDirectory(atPath: fixture.cacheDirectory.path)
        XCTAssertFalse(names.contains { $0.contains("passwd") || $0.contains("..") }, "\(names)")
    }

    /// Ten thousand idle connections and slow clients trickling their heads: the proxy keeps a bounded number
    /// open (the idle longest give way), its memory stays bounded, and a player is served as usual.
    func testFloodsOfIdleAndSlowConnectionsLeaveRealClientsServed() async throws {
        let www = FileManager.default.temporaryDirectory.appendingPathComponent("spool-flood-\(UUID().uuidString)")
        let cacheDirectory = www.appendingPathComponent("cache", isDirectory: true)
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: www) }
        try TestContent.writeGenerated(seed: seed, length: length, to: www.appendingPathComponent("song.mp3"))
        let nginx = try NginxOrigin(serving: www)
        addTeardownBlock { nginx.stop() }
        let serve = try BackgroundProcess(
            executable: try SpoolExecutable.url(), arguments: ["serve", "--port", "0", "--cache", cacheDirectory.path])
        addTeardownBlock { serve.stop() }
        let base = try XCTUnwrap(URL(string: try serve.firstLine()))
        let port = try XCTUnwrap(base.port)
        let url = try ServedProxy(cacheDirectory: cacheDirectory).url(for: nginx.url(for: "song.mp3"))
        let warm = try await Curl.fetch(url)
        XCTAssertEqual(warm.body, TestContent.generatedBytes(seed: seed, range: 0..<length))
        let baseline = try XCTUnwrap(serve.residentMemory()?.current)

        let flood = try await offPool { try Self.openIdleConnections(port: port, count: 10_000) }
        defer { for socket in flood { close(socket) } }
        let slow = try await offPool { try Self.openIdleConnections(port: port, count: 50) }
        defer { for socket in slow { close(socket) } }
        let trickle = Task.detached {
            // A byte of a request head every 100 ms on each slow connection, for as long as the test plays.
            let head = Array("GET /o/x/y/z HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8)
            for index in 0..<200 where !Task.isCancelled {
                for socket in slow {
                    var byte = head[index % head.count]
                    _ = send(socket, &byte, 1, Int32(MSG_NOSIGNAL))
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { trickle.cancel() }

        // The player on a socket of its own: no child process while the test holds ten thousand descriptors
        // (Foundation's Process crashes copying that many).
        let target = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath)
        for round in 0..<3 {
            let first = round * 1000
            let answer = try await RawHTTP.exchangeBytes(
                port: port,
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nRange: bytes=\(first)-\(first + 999)\r\n"
                    + "Connection: close\r\n\r\n")
            let headEnd = try XCTUnwrap(answer.range(of: Data("\r\n\r\n".utf8)), "round \(round)")
            XCTAssertTrue(String(decoding: answer[..<headEnd.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 206"))
            XCTAssertEqual(
                Data(answer[headEnd.upperBound...]),
                TestContent.generatedBytes(seed: seed, range: Int64(first)..<Int64(first + 1000)), "round \(round)")
        }
        let sockets = try Self.openSockets(of: serve.pid)
        XCTAssertLessThanOrEqual(sockets, 256 + 32, "at most the limit of connections, and its own sockets")
        let grown = try XCTUnwrap(serve.residentMemory()?.current) - baseline
        XCTAssertLessThan(grown, 64 << 20, "memory bounded whatever the flood (grew by \(grown >> 20) MiB)")
        print(
            "flood of 10 000 idle and 50 slow connections: \(sockets) sockets open in spool serve, RSS +\(grown >> 10) KiB"
        )
    }

    // MARK: Helpers

    /// Sends `request` (as much of it as the proxy takes before it closes) and returns what came back until the
    /// proxy closed (at most 64 KiB, at most 10 s without a byte).
    private static func attack(port: Int, _ request: String) async throws -> String {
        try await offPool {
            let socket = try POSIXSocket.connectToLoopback(port: port, timeoutSeconds: 10)
            defer { close(socket) }
            let bytes = Array(request.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes {
                    send(socket, $0.baseAddress, min($0.count, 65536), Int32(MSG_NOSIGNAL))
                }
                if count <= 0 { break }
                sent += count
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

    /// `count` connections to 127.0.0.1:`port`, opened all at once (non-blocking) as a flood comes, each
    /// established before this returns: a connect whose SYN the kernel dropped while the proxy's accept queue was
    /// full is retried by the kernel, in parallel with the others, within 30 s.
    private static func openIdleConnections(port: Int, count: Int) throws -> [Int32] {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var sockets: [Int32] = []
        sockets.reserveCapacity(count)
        func fail(_ operation: String) -> any Error {
            let reason = String(cString: strerror(errno))
            for socket in sockets { close(socket) }
            return SocketFailure(description: "\(operation): \(reason)")
        }
        for _ in 0..<count {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard socket >= 0 else { throw fail("socket") }
            sockets.append(socket)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 || errno == EINPROGRESS else { throw fail("connect") }
        }
        var pending = sockets
        let deadline = Date().addingTimeInterval(30)
        while !pending.isEmpty, Date() < deadline {
            var next: [Int32] = []
            for chunk in stride(from: 0, to: pending.count, by: 1024).map({
                pending[$0..<min($0 + 1024, pending.count)]
            }) {
                var polls = chunk.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
                _ = poll(&polls, nfds_t(polls.count), 100)
                for entry in polls {
                    guard entry.revents != 0 else {
                        next.append(entry.fd)
                        continue
                    }
                    var error: Int32 = 0
                    var size = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(entry.fd, SOL_SOCKET, SO_ERROR, &error, &size)
                    guard error == 0 else {
                        errno = error
                        throw fail("connect (\(sockets.count - pending.count) established)")
                    }
                }
            }
            pending = next
        }
        guard pending.isEmpty else {
            errno = ETIMEDOUT
            throw fail("\(pending.count) of \(count) connects")
        }
        return sockets
    }

    /// The sockets process `pid` holds open.
    private static func openSockets(of pid: Int32) throws -> Int {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"))?.hasPrefix("socket:")
                ?? false
        }.count
    }
}
