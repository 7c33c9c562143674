import Foundation

@testable import Spool

/// What the table tests of reads over bodies that pause while unread share: a policy with a 1 MiB probation,
/// 512 KiB first requests and a grace, and a 20 MB resource nothing of which is stored.
enum PausingReadFixture {
    static let policy = FetchPolicy(probation: 1 << 20, firstRequestSize: 512 * 1024, abandonedRequestGrace: 1.5)
    static let length: Int64 = 20_000_000

    /// A fresh state of the resource, nothing stored, no reader.
    static func state() -> EngineState {
        EngineState(policy: policy, info: ContentInfo(length: length, entityTag: "\"v1\""), stored: ByteRangeSet())
    }
}

extension EngineState {
    /// The requests reader `id`'s step at `position` starts when it waits (as `driverStep` takes it); `nil`
    /// when it does not wait.
    mutating func startedWaiting(reader id: Int, position: Int64, link: LinkEstimate) -> [(
        id: Int, range: Range<Int64>
    )]? {
        guard case .wait(let started) = driverStep(reader: id, position: position, link: link) else { return nil }
        return started
    }
}
