import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoader`: holds the delegate (weakly) and its queue, and
/// keeps track of the requests it has handed out so `AVAsset.cancelLoading()` can cancel them.
open class AVAssetResourceLoader: NSObject {
    private struct State {
        weak var delegate: (any AVAssetResourceLoaderDelegate)?
        var queue: DispatchQueue?
        var marker: DelegateQueueMarker?
        /// Keyed by the request's core, which is what an ending request reports with.
        var open: [ObjectIdentifier: AVAssetResourceLoadingRequest] = [:]
    }

    private let state = Locked(State())

    /// Loaders are created by their asset only, as on Apple platforms.
    override init() {
        super.init()
    }

    /// The delegate, held weakly like Apple's: the app (or an asset subclass) must keep it alive.
    public var delegate: (any AVAssetResourceLoaderDelegate)? { state.withLock { $0.delegate } }

    /// The queue the delegate is called on.
    public var delegateQueue: DispatchQueue? { state.withLock { $0.queue } }

    /// Sets the delegate and the queue its methods are called on.
    public func setDelegate(_ delegate: (any AVAssetResourceLoaderDelegate)?, queue delegateQueue: DispatchQueue?) {
        let marker = delegateQueue.map(DelegateQueueMarker.marker(for:))
        state.withLock { state in
            state.delegate = delegate
            state.queue = delegateQueue
            state.marker = marker
        }
    }

    /// Whether the caller runs on the delegate queue (false when there is none).
    var isOnDelegateQueue: Bool {
        state.withLock { $0.marker }?.isCurrent ?? false
    }

    /// Records a request as open until it finishes or is cancelled.
    func register(_ request: AVAssetResourceLoadingRequest) {
        state.withLock { $0.open[ObjectIdentifier(request.core)] = request }
    }

    /// Forgets a request that has ended.
    func requestDidEnd(_ core: LoadingRequestCore) {
        state.withLock { $0.open[ObjectIdentifier(core)] = nil }
    }

    /// Requests handed out and not yet ended.
    var openRequests: [AVAssetResourceLoadingRequest] {
        state.withLock { Array($0.open.values) }
    }

    /// Cancels every open request (see `AVAsset.cancelLoading()`).
    func cancelAllOpenRequests() {
        for request in openRequests {
            cancel(request)
        }
    }

    /// Cancels one request the way AVFoundation does: on the delegate queue, `isCancelled` becomes true and
    /// then the delegate hears `resourceLoader(_:didCancel:)`. Doing both on the delegate queue means a
    /// delegate that checks `isCancelled` there never races with the cancellation.
    func cancel(_ request: AVAssetResourceLoadingRequest) {
        guard let queue = delegateQueue else {
            if request.core.markCancelled() { request.core.cancellationDelivered() }
            return
        }
        let box = UncheckedBox(value: (self, request))
        queue.async {
            let (loader, request) = box.value
            guard request.core.markCancelled() else { return }
            loader.delegate?.resourceLoader(loader, didCancel: request)
            request.core.cancellationDelivered()
        }
    }
}
