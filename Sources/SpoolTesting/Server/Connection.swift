import Foundation

/// Serves one accepted connection: reads requests in a keep-alive loop and answers each.
struct Connection {
    let core: OriginCore
    let fd: Int32

    /// Heads larger than this get 431 and the connection is closed.
    static let maxHeadBytes = 64 * 1024
    /// Request bodies up to this size are read and discarded to keep the connection usable;
    /// larger ones just get their connection closed after the response.
    static let maxDiscardedBodyBytes = 1 << 20

    private enum HeadRead {
        case head([UInt8])
        case closed
        case tooLarge
    }

    func run() {
        var buffer: [UInt8] = []
        while !core.isStopping {
            switch readHead(&buffer) {
            case .closed:
                return
            case .tooLarge:
                rejectAndClose(431)
                return
            case .head(let bytes):
                guard let head = HTTPRequestHead(bytes: bytes[...]) else {
                    rejectAndClose(400)
                    return
                }
                let bodyConsumed = discardBody(of: head, buffer: &buffer)
                guard respond(to: head, mustClose: !bodyConsumed) else { return }
            }
        }
    }

    /// Returns true when the connection may carry another request.
    private func respond(to head: HTTPRequestHead, mustClose: Bool) -> Bool {
        let record = RecordedRequest(
            method: head.method, path: head.path, headers: head.headers, time: Date(), range: head.headers["range"]
        )
        // Snapshot behaviour and content at arrival, so later changes affect only later requests.
        let (id, behaviour, resources) = core.state.withLock { state in
            var behaviour = state.behaviour
            if !state.admits(at: record.time) {
                // Over the rate it allows: refused as a gateway does.
                behaviour.serverErrorStatus = 429
                behaviour.serverErrorFields = ["Retry-After": "1"]
            }
            return (state.beginRequest(record), behaviour, state.resources)
        }
        if let delay = behaviour.answerDelay, !waitWhileRunning(delay) { return false }
        var plan = Responder.plan(for: head, behaviour: behaviour, resources: resources)
        if mustClose || head.wantsClose { plan.closeAfter = true }
        let writer = ResponseWriter(core: core, fd: fd, recordID: id, behaviour: behaviour)
        return writer.write(plan, headOnly: head.method == "HEAD")
    }

    /// Sleeps `seconds` in short slices; false when the origin is stopping meanwhile.
    private func waitWhileRunning(_ seconds: TimeInterval) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while end.timeIntervalSinceNow > 0 {
            if core.isStopping { return false }
            Thread.sleep(forTimeInterval: min(end.timeIntervalSinceNow, 0.05))
        }
        return true
    }

    private func rejectAndClose(_ status: Int) {
        var plan = OriginResponsePlan.text(status, HTTPStatus.reason(status))
        plan.closeAfter = true
        // Not a parsable request, so it is neither counted nor recorded.
        _ = ResponseWriter(core: core, fd: fd, recordID: -1, behaviour: TestOriginBehaviour())
            .write(plan, headOnly: false)
    }

    /// Accumulates bytes until a blank line ends the head; leftovers stay in `buffer` for
    /// the next (pipelined) request.
    private func readHead(_ buffer: inout [UInt8]) -> HeadRead {
        var searchFrom = 0
        while true {
            // RFC 9112 §2.2: ignore empty lines before a request line.
            while buffer.first == 13 || buffer.first == 10 { buffer.removeFirst() }
            if let end = Self.terminator(in: buffer, from: searchFrom) {
                if end > Self.maxHeadBytes { return .tooLarge }
                let head = Array(buffer[..<end])
                buffer.removeFirst(end + 4)
                return .head(head)
            }
            if buffer.count > Self.maxHeadBytes { return .tooLarge }
            searchFrom = max(0, buffer.count - 3)
            guard let more = POSIXSocket.receive(fd) else { return .closed }
            buffer.append(contentsOf: more)
        }
    }

    private static func terminator(in buffer: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = start
        while index + 3 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Skips a request body so the next request parses; false when it could not be skipped.
    private func discardBody(of head: HTTPRequestHead, buffer: inout [UInt8]) -> Bool {
        if head.headers["transfer-encoding"] != nil { return false }
        guard let declared = head.headers["content-length"] else { return true }
        guard let length = Int(declared), length >= 0, length <= Self.maxDiscardedBodyBytes else { return false }
        var remaining = length
        let fromBuffer = min(remaining, buffer.count)
        buffer.removeFirst(fromBuffer)
        remaining -= fromBuffer
        while remaining > 0 {
            guard let more = POSIXSocket.receive(fd, limit: min(remaining, 64 * 1024)) else { return false }
            remaining -= more.count
        }
        return true
    }
}
