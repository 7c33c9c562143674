import Foundation

/// Writes one response: the head, then the body in chunks with the misbehaviours applied.
struct ResponseWriter {
    let core: OriginCore
    let fd: Int32
    let recordID: Int
    let behaviour: TestOriginBehaviour

    /// Returns true when the connection may carry another request.
    func write(_ original: OriginResponsePlan, headOnly: Bool) -> Bool {
        var plan = original
        var reader: ContentReader?
        if case .content(let resource, _) = plan.body, !headOnly {
            // Open before the head goes out, so a vanished file can still become a clean 500.
            reader = try? ContentReader(resource.content)
            if reader == nil { plan = .text(500, "content unavailable") }
        }
        if behaviour.omitsContentLength { plan.closeAfter = true }

        let head = encodeHead(plan)
        core.state.withLock { $0.setStatus(plan.status, forRecord: recordID) }
        guard POSIXSocket.sendAll(fd, head) == head.count else { return false }

        if !headOnly {
            let complete: Bool
            switch plan.body {
            case .none:
                complete = true
            case .text(let data):
                complete = sendCounted(data)
            case .content(_, let range):
                complete = reader.map { writeContent(from: $0, range: range) } ?? false
            }
            if !complete {
                // A deliberately or accidentally cut body: the connection cannot be reused.
                POSIXSocket.shutdownBoth(fd)
                return false
            }
        }
        if plan.closeAfter {
            POSIXSocket.shutdownWrite(fd)
            return false
        }
        return true
    }

    private func encodeHead(_ plan: OriginResponsePlan) -> Data {
        var fields = [("Date", OriginDate.now())] + plan.headers
        if !behaviour.omitsContentLength { fields.append(("Content-Length", String(plan.body.length))) }
        if plan.closeAfter { fields.append(("Connection", "close")) }
        var text = "HTTP/1.1 \(plan.status) \(HTTPStatus.reason(plan.status))\r\n"
        for (name, value) in fields {
            text += "\(behaviour.lowercaseHeaderNames ? name.lowercased() : name): \(value)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// Sends `range` of the content, honouring throttle, drop and short-body behaviours.
    /// Returns false if the body was cut short for any reason.
    private func writeContent(from reader: ContentReader, range: Range<Int64>) -> Bool {
        let total = range.upperBound - range.lowerBound
        var allowed = total
        if let drop = behaviour.dropConnectionAfterBytes { allowed = min(allowed, max(0, drop)) }
        if let short = behaviour.shortBodyBy { allowed = min(allowed, max(0, total - short)) }
        let pacer = Pacer(bytesPerSecond: behaviour.throttleBytesPerSecond)
        var sent: Int64 = 0
        while sent < allowed {
            if core.isStopping { return false }
            if let stall = behaviour.stallAfterBytes, sent >= stall {
                while !core.isStopping { Thread.sleep(forTimeInterval: 0.05) }
                return false
            }
            let count = Int(min(Int64(pacer.chunkSize), allowed - sent, (behaviour.stallAfterBytes ?? .max) - sent))
            let chunk = reader.read(offset: range.lowerBound + sent, count: count)
            guard chunk.count == count, sendCounted(chunk) else { return false }
            sent += Int64(count)
            guard pacer.wait(afterSending: sent, shouldStop: { core.isStopping }) else { return false }
        }
        return allowed == total
    }

    /// Counts the bytes before sending, so a client holding them never sees a smaller counter,
    /// then takes back whatever the kernel refused.
    private func sendCounted(_ data: Data) -> Bool {
        let length = Int64(data.count)
        core.state.withLock { $0.addBodyBytes(length, forRecord: recordID) }
        let sent = Int64(POSIXSocket.sendAll(fd, data))
        if sent < length {
            core.state.withLock { $0.addBodyBytes(sent - length, forRecord: recordID) }
            return false
        }
        return true
    }
}
