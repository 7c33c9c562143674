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
        try TestContent.writeGenerated(seed: seed, length: length, to: file)
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
