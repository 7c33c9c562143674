import Foundation
import SpoolTesting
import XCTest

extension XCTestCase {
    /// A fresh origin that is stopped when the test ends, pass or fail.
    func makeOrigin() throws -> TestOrigin {
        let origin = try TestOrigin()
        addTeardownBlock { origin.stop() }
        return origin
    }

    /// 0, 1, 2, ... so any slice is easy to predict.
    func countingBytes(_ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0) })
    }

    /// Polls `condition` for up to `timeout`, for counters updated just after a client
    /// has already seen the response.
    func eventually(timeout: TimeInterval = 2, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}
