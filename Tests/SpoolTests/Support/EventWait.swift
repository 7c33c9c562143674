import XCTest

extension XCTestCase {
    /// Waits for `event` (an async call that returns when what the test waits for has happened) and says
    /// whether it came. `guardTime` only bounds a failing test, which would otherwise hang the run: it is no
    /// measurement, and a passing test never waits for it.
    func arrives(
        _ description: String, guardTime: TimeInterval = 60, _ event: @escaping @Sendable () async -> Void
    ) async -> Bool {
        let came = expectation(description: description)
        let task = Task {
            await event()
            came.fulfill()
        }
        let result = await XCTWaiter().fulfillment(of: [came], timeout: guardTime)
        task.cancel()
        return result == .completed
    }
}
