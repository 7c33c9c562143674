import Foundation
import SpoolTesting
import XCTest

/// nginx serving one generated file from a temporary directory, and a cache directory beside it.
struct NginxFixture {
    let server: NginxOrigin
    let root: URL
    let cacheDirectory: URL
    let file: URL
    let url: URL

    init(test: XCTestCase, length: Int64, seed: UInt64, name: String = "media.bin") throws {
        root = try makeTemporaryDirectory()
        cacheDirectory = try makeTemporaryDirectory()
        let served = root.appendingPathComponent("www", isDirectory: true)
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        file = served.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        var offset: Int64 = 0
        while offset < length {
            let end = min(length, offset + 4 * 1024 * 1024)
            try handle.write(contentsOf: TestContent.generatedBytes(seed: seed, range: offset..<end))
            offset = end
        }
        try handle.close()
        server = try NginxOrigin(serving: served)
        url = server.url(for: name)
        let server = server
        let root = root
        let cacheDirectory = cacheDirectory
        test.addTeardownBlock {
            server.stop()
            try? FileManager.default.removeItem(at: root)
            try? FileManager.default.removeItem(at: cacheDirectory)
        }
    }
}
