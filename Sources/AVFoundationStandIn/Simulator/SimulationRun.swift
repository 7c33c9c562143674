#if os(Linux)
import Foundation

/// The bookkeeping and checks of one `PlayerSimulator.run`: receives every event of the requests it
/// issued, compares bytes, decides when the player cancels, and builds the report. `@unchecked Sendable`:
/// events arrive from the delegate queue and the player's; what changes is in a `Locked`, the rest is set in
/// `init`.
final class SimulationRun: LoadingRequestObserver, @unchecked Sendable {
    /// What the script asks of one request, resolved against the resource length.
    struct Plan {
        var scripted: ScriptedRequest
        /// End of the requested range (exclusive), clamped to the resource.
        var naturalEnd: Int64
        /// Offset up to which the player reads before it cancels (or `naturalEnd`).
        var target: Int64
        /// The delegate must finish the request (the player does not cancel it first).
        var expectsFinish: Bool
        var name: String
    }

    private struct Progress {
        var request: AVAssetResourceLoadingRequest?
        var issuedAt: TimeInterval?
        var accepted: Bool?
        var received: Int64 = 0
        var firstRespondAt: TimeInterval?
        var cancelRequested = false
        var ended = false
    }

    private struct State {
        var progress: [Progress]
        var failures: [String] = []
        var checksPassed = 0
        var released = 0
        var bytesPlayed: Int64 = 0
        var longestWait: TimeInterval = 0
        var waitStart: TimeInterval?
        var entireLengthAvailableOnDemand: Bool?
        var closed = false
    }

    let plans: [Plan]
    private let loader: AVAssetResourceLoader
    private let expectedBytes: @Sendable (Range<Int64>) -> Data
    private let resourceLength: Int64
    private let expectedContentType: String?
    private let firstDataIndex: Int?
    private let state: Locked<State>
    private let abandoned: @Sendable () -> Bool
    /// Where the simulated player cancels requests: not the delegate queue.
    private let playerQueue = DispatchQueue(label: "AVFoundationStandIn.player")
    /// The item's log of the playback, when the player reports it (`SimulatedPlayback`).
    private let playbackLog: PlaybackItemLog?

    init(
        script: PlayerScript, loader: AVAssetResourceLoader, expectedBytes: @escaping @Sendable (Range<Int64>) -> Data,
        resourceLength: Int64, expectedContentType: String?, abandoned: @escaping @Sendable () -> Bool,
        item: AVPlayerItem? = nil, playback: SimulatedPlayback? = nil
    ) {
        playbackLog = PlaybackItemLog(item: item, playback: playback, resourceLength: resourceLength)
        self.loader = loader
        self.abandoned = abandoned
        self.expectedBytes = expectedBytes
        self.resourceLength = resourceLength
        self.expectedContentType = expectedContentType
        plans = script.requests.enumerated().map { index, scripted in
            // A request without either part is not something AVFoundation sends; treat it as a data request.
            var scripted = scripted
            if !scripted.info { scripted.data = true }
            let naturalEnd = scripted.length.map { min(scripted.offset + $0, resourceLength) } ?? resourceLength
            let cap = scripted.cancelAfter ?? (scripted.length == nil ? script.toEndReadLimit : nil)
            let target = scripted.data ? cap.map { min(scripted.offset + $0, naturalEnd) } ?? naturalEnd : naturalEnd
            return Plan(
                scripted: scripted, naturalEnd: naturalEnd, target: target, expectsFinish: target >= naturalEnd,
                name: "request \(index) (\(scripted.info ? "info, " : "")\(scripted.rangeHeader))")
        }
        firstDataIndex = script.requests.firstIndex { $0.data || !$0.info }
        state = Locked(State(progress: Array(repeating: Progress(), count: script.requests.count)))
    }

    // MARK: Driving

    /// Records a failure that is not tied to one request.
    func fail(_ message: String) {
        state.withLock { $0.failures.append(message) }
    }

    /// Whether every request in `indices` has ended (finished, cancelled, or declined).
    func haveEnded(_ indices: [Int]) -> Bool {
        state.withLock { state in indices.allSatisfy { state.progress[$0].ended } }
    }

    /// Whether every issued request has ended.
    var issuedHaveEnded: Bool {
        state.withLock { $0.progress.allSatisfy { $0.ended || $0.issuedAt == nil } }
    }

    /// The request is about to be handed to the delegate.
    func issued(_ index: Int, _ request: AVAssetResourceLoadingRequest?) {
        let now = monotonicSeconds()
        state.withLock { state in
            state.progress[index].request = request
            state.progress[index].issuedAt = now
            if request == nil { state.progress[index].ended = true }
            if state.waitStart == nil { state.waitStart = now }
        }
    }

    /// The delegate answered `shouldWaitForLoadingOfRequestedResource`.
    func answered(_ index: Int, accepted: Bool) {
        let plan = plans[index]
        let request: AVAssetResourceLoadingRequest? = state.withLock { state in
            state.progress[index].accepted = accepted
            if accepted {
                state.checksPassed += 1
                return nil
            }
            state.failures.append(
                "\(plan.name): the delegate returned false from shouldWaitForLoadingOfRequestedResource")
            state.progress[index].ended = true
            return state.progress[index].request
        }
        // A declined request is dead for AVFoundation: anything the delegate does to it later is a violation.
        _ = request?.core.markCancelled()
        if accepted { cancelIfSatisfied(index) }
    }

    // MARK: LoadingRequestObserver

    func loadingRequest(_ index: Int, didRespond data: Data, at offset: Int64) {
        let plan = plans[index]
        let end = offset + Int64(data.count)
        var problems: [String] = []
        if end > plan.naturalEnd {
            problems.append("\(plan.name): responded bytes up to \(end), beyond the requested end \(plan.naturalEnd)")
        }
        let checked = offset..<max(offset, min(end, plan.naturalEnd))
        let slice = data.prefix(checked.count)
        let expected = expectedBytes(checked)
        let correct = slice == expected
        if !correct {
            let differing =
                zip(slice, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(slice.count, expected.count)
            problems.append("\(plan.name): wrong bytes, first difference at offset \(offset + Int64(differing))")
        }
        let now = monotonicSeconds()
        let played = state.withLock { state -> Int64? in
            guard !state.closed else { return nil }
            state.failures += problems
            if correct {
                state.checksPassed += 1
                state.bytesPlayed += Int64(checked.count)
            }
            if state.progress[index].firstRespondAt == nil { state.progress[index].firstRespondAt = now }
            state.progress[index].received = max(state.progress[index].received, end - plan.scripted.offset)
            noteEvent(&state, at: now)
            return state.bytesPlayed
        }
        if let played { playbackLog?.received(total: played, at: now) }
        cancelIfSatisfied(index)
    }

    func loadingRequest(
        _ index: Int, didFinishWith error: (any Error)?, info: ContentInformationSnapshot?, currentOffset: Int64?
    ) {
        let plan = plans[index]
        var problems: [String] = []
        var passed = 0
        var released = false
        if let error {
            let nsError = error as NSError
            if nsError.domain == NSURLErrorDomain, nsError.code == NSURLErrorCancelled, abandoned() {
                // The app gave up on the asset and the delegate kept its promise to finish the request.
                released = true
            } else {
                problems.append("\(plan.name): finished with error \(error)")
            }
        } else {
            if plan.scripted.info {
                let infoProblems = ContentInformationCheck(
                    expectedLength: resourceLength, expectedType: expectedContentType
                )
                .problems(in: info)
                problems += infoProblems.map { "\(plan.name): \($0)" }
                passed += infoProblems.isEmpty ? 1 : 0
            }
            // With a content-information request AVFoundation accepts a finish once the info is filled.
            if plan.scripted.data, !plan.scripted.info, let currentOffset {
                if currentOffset < plan.naturalEnd {
                    let what = plan.scripted.length == nil ? "the resource end" : "the requested end"
                    problems.append(
                        "\(plan.name): finished early at offset \(currentOffset), before \(what) \(plan.naturalEnd); "
                            + "AVFoundation would believe the resource ends there")
                } else {
                    passed += 1
                }
            }
        }
        let now = monotonicSeconds()
        state.withLock { state in
            guard !state.closed else { return }
            state.failures += problems
            state.checksPassed += passed
            if released { state.released += 1 }
            if let marked = info?.isEntireLengthAvailableOnDemand { state.entireLengthAvailableOnDemand = marked }
            state.progress[index].ended = true
            noteEvent(&state, at: now)
        }
    }

    func loadingRequestWasCancelled(_ index: Int) {
        let now = monotonicSeconds()
        state.withLock { state in
            state.progress[index].ended = true
            noteEvent(&state, at: now)
        }
    }

    func loadingRequest(_ index: Int, violation: String) {
        let name = plans[index].name
        state.withLock { state in
            guard !state.closed else { return }
            state.failures.append("\(name): \(violation)")
        }
    }

    // MARK: Internals

    /// The player cancels once it has read what the script says (the delegate may have sent more).
    private func cancelIfSatisfied(_ index: Int) {
        let plan = plans[index]
        guard plan.scripted.data, !plan.expectsFinish else { return }
        let request: AVAssetResourceLoadingRequest? = state.withLock { state in
            let progress = state.progress[index]
            guard progress.accepted == true, !progress.cancelRequested, !progress.ended,
                plan.scripted.offset + progress.received >= plan.target
            else { return nil }
            state.progress[index].cancelRequested = true
            return progress.request
        }
        // From the player's own thread, as AVFoundation does: `isCancelled` may turn true while the delegate is
        // still busy on its queue, well before `didCancel` reaches it.
        if let request {
            let box = UncheckedBox(value: (loader, request))
            playerQueue.async { box.value.0.cancel(box.value.1) }
        }
    }

    /// Measures the gap since the last event if the player was waiting, and starts a new one if it still is.
    private func noteEvent(_ state: inout State, at now: TimeInterval) {
        if let start = state.waitStart { state.longestWait = max(state.longestWait, now - start) }
        let waiting = state.progress.indices.contains { index in
            let progress = state.progress[index]
            return progress.issuedAt != nil && !progress.ended
                && (!plans[index].scripted.data
                    || plans[index].scripted.offset + progress.received < plans[index].target)
        }
        state.waitStart = waiting ? now : nil
    }

    /// Requests still open, so the simulator can cancel them when it stops, as a player being torn down would.
    var openRequests: [AVAssetResourceLoadingRequest] {
        state.withLock { $0.progress.compactMap { $0.ended ? nil : $0.request } }
    }

    /// Ends the run: names requests left hanging, closes the item's playback log (what was watched until the
    /// player stopped, and the session's summary) and freezes the report.
    func close(timedOut timeout: TimeInterval?) -> SimulationReport {
        playbackLog?.close(at: monotonicSeconds())
        return state.withLock { state in
            state.closed = true
            if let timeout { state.failures.append("the simulation timed out after \(timeout) s") }
            for (index, progress) in state.progress.enumerated() where !progress.ended {
                let name = plans[index].name
                switch progress.accepted {
                case _ where progress.issuedAt == nil:
                    state.failures.append("\(name) was never issued: earlier requests never ended")
                case nil:
                    state.failures.append("\(name): shouldWaitForLoadingOfRequestedResource never returned")
                default:
                    state.failures.append("\(name) was accepted but never finished (and not cancelled)")
                }
            }
            let ttfb = firstDataIndex.flatMap { index -> TimeInterval? in
                guard let issued = state.progress[index].issuedAt, let first = state.progress[index].firstRespondAt
                else { return nil }
                return first - issued
            }
            var report = SimulationReport(
                checksPassed: state.checksPassed, failures: state.failures, bytesPlayed: state.bytesPlayed,
                timeToFirstByte: ttfb, longestWait: state.longestWait,
                requests: state.progress.filter { $0.issuedAt != nil }.count, requestsReleased: state.released)
            report.entireLengthAvailableOnDemand = state.entireLengthAvailableOnDemand
            return report
        }
    }
}
#endif
