import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SpoolTesting
import XCTest
final class TmpProbe: XCTestCase {
    func testProbe() async throws {
        try TestContent.generatedBytes(seed: 3, range: 0..<300_000).write(to: URL(fileURLWithPath: "/tmp/ngxp/root/b"))
        let n = try NginxOrigin(serving: URL(fileURLWithPath: "/tmp/ngxp/root"))
        let session = Fetch.session()
        for _ in 0..<3 {
            let t1 = Date()
            _ = try await Fetch.data(n.url(for: "b"), session: session)
            print("fetch", Date().timeIntervalSince(t1))
        }
        let t2 = Date()
        let log = try n.accessLog(waitingForEntries: 3)
        print("log", log.count, Date().timeIntervalSince(t2))
        n.stop()
    }
}
