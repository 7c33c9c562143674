import Foundation
import XCTest

@testable import Spool
@testable import SpoolDownloads

/// `downloads.json` on disk: replaced whole, readable by its user only, and read back as written.
final class DownloadQueueFileTests: XCTestCase {
    private func makeDirectory() throws -> URL {
        let directory = try makeTemporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        return directory
    }

    func testTheQueueIsReplacedWholeReadableByItsUserOnlyAndReadBack() throws {
        let directory = try makeDirectory()
        let signed = URL(string: "https://media.example/album/1.mp3?token=secret")!
        let first = [DownloadSchedule.Entry(request: DownloadRequest(url: signed), phase: .queued)]
        let second =
            first + [
                DownloadSchedule.Entry(
                    request: DownloadRequest(url: URL(string: "https://media.example/album/2.mp3")!),
                    phase: .completed(bytes: 300_000))
            ]
        let file = try DownloadQueueFile(directory: directory)
        try file.save(first)
        try file.save(second)

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertEqual(names, ["downloads.json", "downloads.lock"], "the queue and its lock, no temporary file")
        // The queue names what the user downloads, signed URLs included: no other user of the machine reads it.
        for name in names {
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, name)
        }
        XCTAssertEqual(try DownloadQueueFile.read(in: directory), second)

        file.unlock()
        let reopened = try DownloadQueueFile(directory: directory)
        let loaded = reopened.load()
        XCTAssertNil(loaded.problem)
        XCTAssertEqual(loaded.entries, second)
    }

    func testAShorterQueueLeavesNothingOfTheLongerOneBefore() throws {
        let directory = try makeDirectory()
        let file = try DownloadQueueFile(directory: directory)
        let many = (0..<40).map { index in
            DownloadSchedule.Entry(
                request: DownloadRequest(url: URL(string: "https://media.example/album/\(index).mp3")!),
                phase: .queued)
        }
        try file.save(many)
        try file.save(Array(many.prefix(1)))
        XCTAssertEqual(try DownloadQueueFile.read(in: directory), Array(many.prefix(1)))
    }
}
