#if os(Linux)
import Foundation

/// The state shared by a loading request and its data request.
///
/// Both objects may be retained by an adapter independently; holding the state here (instead of a
/// back-reference from the data request to its loading request) avoids a retain cycle and still lets a
/// `respond(with:)` on a finished request be detected. `@unchecked Sendable`: what changes is in a `Locked`,
/// the rest is set once in `init` (the loader and observer are weak references, read atomically).
final class LoadingRequestCore: @unchecked Sendable {
    /// How a request ended, if it did.
    enum Phase { case open, finished, cancelled }

    private struct State {
        var phase = Phase.open
        var currentOffset: Int64
        /// The delegate is being or has been told of the cancellation (`didCancel` was called).
        var cancellationDelivered = false
        var reported: Set<String> = []
    }

    /// Position in the simulator's script, used to name the request in failures.
    let index: Int
    let contentInformation: AVAssetResourceLoadingContentInformationRequest?
    private let state: Locked<State>
    private weak var loader: AVAssetResourceLoader?
    private weak var observer: (any LoadingRequestObserver)?
    private let hasData: Bool

    init(
        index: Int, startOffset: Int64, hasData: Bool,
        contentInformation: AVAssetResourceLoadingContentInformationRequest?,
        loader: AVAssetResourceLoader, observer: (any LoadingRequestObserver)?
    ) {
        self.index = index
        self.hasData = hasData
        self.contentInformation = contentInformation
        self.state = Locked(State(currentOffset: startOffset))
        self.loader = loader
        self.observer = observer
    }

    var phase: Phase { state.withLock { $0.phase } }
    var currentOffset: Int64 { state.withLock { $0.currentOffset } }

    /// `respond(with:)`: checks the caller, then advances `currentOffset` like AVFoundation does.
    func respond(_ data: Data) {
        checkDelegateQueue("respond(with:)")
        let outcome: (offset: Int64?, tooLate: Phase?) = state.withLock { state in
            switch state.phase {
            case .open:
                let offset = state.currentOffset
                state.currentOffset += Int64(data.count)
                return (offset, nil)
            // The delegate could not know yet: AVFoundation drops the bytes.
            case .cancelled where !state.cancellationDelivered: return (nil, nil)
            case .cancelled, .finished: return (nil, state.phase)
            }
        }
        if let phase = outcome.tooLate {
            report(
                "respond(with:) called after the request was \(phase == .finished ? "finished" : "cancelled")",
                key: "respond-after-end")
        }
        guard let offset = outcome.offset else { return }
        if !data.isEmpty {
            observer?.loadingRequest(index, didRespond: data, at: offset)
        }
    }

    /// `finishLoading` / `finishLoading(with:)`: only the first call on an open request counts.
    func finish(error: (any Error)?) {
        checkDelegateQueue("finishLoading")
        let (previous, delivered): (Phase, Bool) = state.withLock { state in
            let previous = state.phase
            if previous == .open { state.phase = .finished }
            return (previous, state.cancellationDelivered)
        }
        switch previous {
        case .finished:
            report("finishLoading called a second time", key: "finish-twice")
        case .cancelled where delivered:
            report("finishLoading called after the request was cancelled", key: "finish-after-cancel")
        case .cancelled:
            // Cancelled a moment ago on another thread, before the delegate heard of it: ignored, as by AVFoundation.
            break
        case .open:
            if error == nil, let information = contentInformation {
                if let problem = Self.allowedTypeProblem(information) {
                    report(
                        "finishLoading raised NSInternalInconsistencyException (the app would crash): \(problem)",
                        key: "disallowed-content-type")
                } else {
                    loader?.learnedContentLength(information.contentLength)
                }
            }
            loader?.requestDidEnd(self)
            let info = contentInformation.map {
                ContentInformationSnapshot(
                    contentType: $0.contentType, contentLength: $0.contentLength,
                    isByteRangeAccessSupported: $0.isByteRangeAccessSupported,
                    isEntireLengthAvailableOnDemand: $0.entireLengthAvailableOnDemandSet)
            }
            for selector in contentInformation?.unavailableUses ?? [] {
                report(
                    "-[AVAssetResourceLoadingContentInformationRequest \(selector)]: unrecognized selector sent to "
                        + "instance (\(contentInformation!.standInSystem) lacks it; the app would crash)",
                    key: "unavailable-\(selector)")
            }
            observer?.loadingRequest(
                index, didFinishWith: error, info: info, currentOffset: hasData ? currentOffset : nil)
        }
    }

    /// Marks the request cancelled; false when it had already ended (nothing to cancel).
    func markCancelled() -> Bool {
        let cancelled = state.withLock { state -> Bool in
            guard state.phase == .open else { return false }
            state.phase = .cancelled
            return true
        }
        if cancelled { loader?.requestDidEnd(self) }
        return cancelled
    }

    /// The delegate is about to hear of the cancellation: it must not touch the request any more.
    func cancellationDelivering() {
        state.withLock { $0.cancellationDelivered = true }
    }

    /// Tells the observer the cancellation has been delivered to the delegate.
    func cancellationDelivered() {
        observer?.loadingRequestWasCancelled(index)
    }

    /// The header of `AVAssetResourceLoadingContentInformationRequest` says finishing raises when
    /// `allowedContentTypes` is non-empty and `contentType` is not among them (UTIs compare case-insensitively).
    static func allowedTypeProblem(_ information: AVAssetResourceLoadingContentInformationRequest) -> String? {
        guard let allowed = information.allowedContentTypes, !allowed.isEmpty else { return nil }
        let type = information.contentType
        guard !allowed.contains(where: { $0.lowercased() == type?.lowercased() }) else { return nil }
        return "contentType \(type.map { "\"\($0)\"" } ?? "nil") is not one of allowedContentTypes \(allowed)"
    }

    /// AVFoundation calls the delegate on its queue and expects answers there; anything else races with
    /// the player's own bookkeeping.
    private func checkDelegateQueue(_ call: String) {
        guard let loader, !loader.isOnDelegateQueue else { return }
        report("\(call) called off the delegate queue", key: "off-queue-\(call)")
    }

    /// Reports each kind of violation once per request, so a misbehaving loop does not flood the report.
    private func report(_ message: String, key: String) {
        let isNew = state.withLock { $0.reported.insert(key).inserted }
        if isNew { observer?.loadingRequest(index, violation: message) }
    }
}
#endif
