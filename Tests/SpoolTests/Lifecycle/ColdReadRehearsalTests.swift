import Foundation
import SpoolTesting
import XCTest

@testable import Spool

/// A rehearsed cold read runs the whole read path once on a private cache: it must read every byte, ask its
/// origin without the app's request modifier, and leave nothing on disk.
final class ColdReadRehearsalTests: XCTestCase {
    func testARehearsalReadsTheResourceTwiceAndLeavesItsDirectoryRemoved() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 300_000, seed: 3), at: "/clip.mp4", contentType: "video/mp4")
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("rehearsal", isDirectory: true)

        let counts = await SpoolCache.rehearseColdRead(
            of: origin.url(for: "/clip.mp4"), through: HTTPOrigin(), in: directory)

        XCTAssertEqual(counts, [300_000, 300_000])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
        // The second read came from disk.
        XCTAssertEqual(origin.requests.reduce(0) { $0 + $1.bodyBytesSent }, 300_000)
    }

    func testTheRehearsalOriginLeavesOutTheModifierAndClosesItsConnections() async throws {
        let origin = try TestOrigin()
        defer { origin.stop() }
        origin.serve(.generated(length: 5, seed: 4), at: "/ping", contentType: "text/plain")
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let appOrigin = HTTPOrigin(modifier: HTTPOrigin.settingHeaders(["Authorization": "Bearer app-secret"]))

        let counts = await SpoolCache.rehearseColdRead(
            of: origin.url(for: "/ping"), through: appOrigin.rehearsal,
            in: parent.appendingPathComponent("rehearsal", isDirectory: true))

        XCTAssertEqual(counts, [5, 5])
        XCTAssertFalse(origin.requests.isEmpty)
        for request in origin.requests {
            let fields = Dictionary(uniqueKeysWithValues: request.headers.map { ($0.key.lowercased(), $0.value) })
            XCTAssertNil(fields["authorization"], "\(request.headers)")
            XCTAssertEqual(fields["connection"]?.lowercased(), "close", "\(request.headers)")
        }
    }

    func testARehearsalWhoseOriginFailsStillRemovesItsDirectory() async throws {
        let origin = try TestOrigin()
        let gone = origin.url(for: "/clip.mp4")
        origin.stop()
        let parent = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appendingPathComponent("rehearsal", isDirectory: true)

        let counts = await SpoolCache.rehearseColdRead(of: gone, through: HTTPOrigin(timeout: 2), in: directory)

        XCTAssertEqual(counts, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path))
    }
}
