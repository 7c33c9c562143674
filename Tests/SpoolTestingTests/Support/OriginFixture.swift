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
    /// has already seen the response. It returns as soon as the condition holds: the timeout only bounds a
    /// failing test, so it is generous enough for a busy machine.
    func eventually(timeout: TimeInterval = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    /// Whether `work` returns at all: it runs on another thread, and the test waits for it up to `guardTime`, a
    /// bound on a hang (a stop that waits for a client that never closes), never a measurement of speed.
    func returns(guardTime: TimeInterval = 60, _ work: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done, execute: work)
        return done.wait(timeout: .now() + guardTime) == .success
    }
}
