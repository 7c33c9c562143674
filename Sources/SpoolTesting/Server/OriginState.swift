import Foundation

/// Everything mutable about a running origin; only ever touched under `OriginCore`'s lock.
struct OriginState {
    var resources: [String: ServedResource] = [:]
    /// Bumped by every `serve`, feeding the ETag and Last-Modified of the new version.
    var contentVersion = 0
    var behaviour = TestOriginBehaviour()

    var requestCount = 0
    var bodyBytesSent: Int64 = 0
    var records: [RecordedRequest] = []
    /// Record ids are sequential; `records[0]` has this id. Ids below it were cleared by a
    /// reset, so late byte counts from those requests no longer count.
    var firstRecordID = 0
    var nextRecordID = 0

    /// Open connection descriptors, so `stop` can shut them down.
    var connections: [Int: Int32] = [:]
    var nextConnectionID = 0
    var stopping = false

    /// When the requests `TestOriginBehaviour.requestsPerSecond` allowed arrived, within the last second.
    var allowedArrivals: [Date] = []

    /// Whether a request arriving at `time` is within `behaviour.requestsPerSecond`; counts it if so.
    mutating func admits(at time: Date) -> Bool {
        guard let limit = behaviour.requestsPerSecond else { return true }
        allowedArrivals.removeAll { time.timeIntervalSince($0) >= 1 }
        guard allowedArrivals.count < limit else { return false }
        allowedArrivals.append(time)
        return true
    }

    mutating func beginRequest(_ record: RecordedRequest) -> Int {
        let id = nextRecordID
        nextRecordID += 1
        requestCount += 1
        records.append(record)
        return id
    }

    mutating func setStatus(_ status: Int, forRecord id: Int) {
        guard id >= firstRecordID, id - firstRecordID < records.count else { return }
        records[id - firstRecordID].responseStatus = status
    }

    mutating func addBodyBytes(_ delta: Int64, forRecord id: Int) {
        guard id >= firstRecordID, id - firstRecordID < records.count else { return }
        records[id - firstRecordID].bodyBytesSent += delta
        bodyBytesSent += delta
    }

    mutating func resetCounters() {
        requestCount = 0
        bodyBytesSent = 0
        records = []
        firstRecordID = nextRecordID
    }
}
