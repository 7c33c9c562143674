import Foundation

/// The state shared by a loading request and its data request.
///
/// Both objects may be retained by an adapter independently; holding the state here (instead of a
/// back-reference from the data request to its loading request) avoids a retain cycle and still lets a
/// `respond(with:)` on a finished request be detected.
final class LoadingRequestCore: @unchecked Sendable {
    /// How a request ended, if it did.
    enum Phase { case open, finished, cancelled }

    private struct State {
        var phase = Phase.open
        var currentOffset: Int64
        var reported: Set<String> = []
    }

    /// Position in the simulator's script, used to name the request in failures.
    let index: Int
    let contentInformation: AVAssetResourceLoadingContentInformationRequest?
    private let state: Locked<State>
    private weak var loader: AVAssetResourceLoader?
    private weak var observer: (any LoadingRequestObserver)?
    private let hasData: Bool

    init(index: Int, startOffset: Int64, hasData: Bool, contentInformation: AVAssetResourceLoadingContentInformationRequest?,
         loader: AVAssetResourceLoader, observer: (any LoadingRequestObserver)?) {
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
        let accepted: Int64? = state.withLock { state in
            guard state.phase == .open else { return nil }
            let offset = state.currentOffset
            state.currentOffset += Int64(data.count)
            return offset
        }
        guard let offset = accepted else {
            let phase = self.phase == .finished ? "finished" : "cancelled"
            report("respond(with:) called after the request was \(phase)", key: "respond-after-end")
            return
        }
        if !data.isEmpty {
            observer?.loadingRequest(index, didRespond: data, at: offset)
        }
    }

    /// `finishLoading` / `finishLoading(with:)`: only the first call on an open request counts.
    func finish(error: (any Error)?) {
        checkDelegateQueue("finishLoading")
        let previous: Phase = state.withLock { state in
            let previous = state.phase
            if previous == .open { state.phase = .finished }
            return previous
        }
        switch previous {
        case .finished:
            report("finishLoading called a second time", key: "finish-twice")
        case .cancelled:
            report("finishLoading called after the request was cancelled", key: "finish-after-cancel")
        case .open:
            loader?.requestDidEnd(self)
            let info = contentInformation.map {
                ContentInformationSnapshot(contentType: $0.contentType, contentLength: $0.contentLength,
                                           isByteRangeAccessSupported: $0.isByteRangeAccessSupported)
            }
            observer?.loadingRequest(index, didFinishWith: error, info: info, currentOffset: hasData ? currentOffset : nil)
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

    /// Tells the observer the cancellation has been delivered to the delegate.
    func cancellationDelivered() {
        observer?.loadingRequestWasCancelled(index)
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
