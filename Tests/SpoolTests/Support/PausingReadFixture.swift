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
