import Foundation
import SpoolTesting
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP response read off a raw socket, with when its first byte arrived.
struct TimedResponse {
    var firstByte: TimeInterval
    var elapsed: TimeInterval
    var body: Data
    /// errno of the read that ended it early (0 when complete or cleanly closed).
    var failure: Int32
    var complete: Bool
}

extension XCTestCase {
    /// A link in front of `origin` that is stopped when the test ends, pass or fail.
    func makeLink(to origin: TestOrigin, _ profile: LinkProfile) throws -> LinkEmulator {
        let link = try LinkEmulator(upstream: origin, profile: profile)
        addTeardownBlock { link.stop() }
        return link
    }

    /// A test profile; round trip in milliseconds, rate in Mbit/s.
    func linkProfile(
        milliseconds: Double, megabits: Double, window: Int? = nil, faults: LinkFaultSchedule? = nil
    ) -> LinkProfile {
        LinkProfile(
            name: "test", roundTrip: milliseconds / 1000, bitsPerSecond: Int(megabits * 1_000_000),
            window: window, faults: faults
        )
    }

}

extension TimedResponse {
    /// Sends a GET on `fd` and reads its response to the end of its body (or the first error).
    static func get(_ fd: Int32, path: String, range: String? = nil) -> TimedResponse {
        let started = Date()
        let rangeLine = range.map { "Range: bytes=\($0)\r\n" } ?? ""
        _ = POSIXSocket.sendAll(fd, Data("GET \(path) HTTP/1.1\r\nHost: link\r\n\(rangeLine)\r\n".utf8))
        var received = Data()
        var firstByte: TimeInterval?
        var bodyStart: Int?
        var expected = Int.max
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while received.count < expected {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                let failure = count < 0 ? errno : 0
                return TimedResponse(
                    firstByte: firstByte ?? -1, elapsed: Date().timeIntervalSince(started),
                    body: received.suffix(from: bodyStart ?? received.count), failure: failure, complete: false
                )
            }
            if firstByte == nil { firstByte = Date().timeIntervalSince(started) }
            received.append(contentsOf: buffer[0..<count])
            if bodyStart == nil, let end = received.range(of: Data("\r\n\r\n".utf8)) {
                bodyStart = end.upperBound
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let field = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                let length = field.flatMap {
                    Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                }
                expected = end.upperBound + (length ?? 0)
            }
        }
        return TimedResponse(
            firstByte: firstByte ?? -1, elapsed: Date().timeIntervalSince(started),
            body: Data(received[(bodyStart ?? 0)...]), failure: 0, complete: true
        )
    }
}
