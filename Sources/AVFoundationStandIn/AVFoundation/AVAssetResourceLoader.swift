#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoader`: holds the delegate (weakly) and its queue, and
/// keeps track of the requests it has handed out.
///
/// Checked against the iOS 17.2 and iOS 18.0 SDKs' `AVAssetResourceLoader.h` (no copy of Xcode 26's was found): not
/// main-actor isolated, not
/// Sendable, `API_UNAVAILABLE(watchos)`; `delegate` is `weak, nullable`, `delegateQueue` nullable.
@available(watchOS, unavailable)
open class AVAssetResourceLoader: NSObject {
    private struct State {
        weak var delegate: (any AVAssetResourceLoaderDelegate)?
        var queue: DispatchQueue?
        var marker: DelegateQueueMarker?
        /// Keyed by the request's core, which is what an ending request reports with.
        var open: [ObjectIdentifier: AVAssetResourceLoadingRequest] = [:]
        /// The length a finished content-information request reported, once one did.
        var learnedLength: Int64?
        /// The app called `cancelLoading()` on the asset.
        var abandonedByApp = false
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

    /// Sets the delegate and the queue its methods are called on (both nullable).
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

    /// A content-information request finished with `length`: later to-end requests report the remaining
    /// length instead of `NSIntegerMax`.
    func learnedContentLength(_ length: Int64) {
        state.withLock { $0.learnedLength = length }
    }

    /// The resource length the player knows, if a content-information request has told it.
    var learnedLength: Int64? { state.withLock { $0.learnedLength } }

    /// The app called `cancelLoading()` on the asset.
    func appCancelledLoading() {
        state.withLock { $0.abandonedByApp = true }
    }

    /// Whether the app called `cancelLoading()` on the asset: requests finished with a cancellation error
    /// after that are the adapter keeping its promise, not a failure.
    var wasAbandonedByApp: Bool { state.withLock { $0.abandonedByApp } }

    /// Cancels one request the way AVFoundation does: `isCancelled` turns true at once, on the calling
    /// thread (AVFoundation's own, not the delegate queue), and the delegate hears
    /// `resourceLoader(_:didCancel:)` later on its queue. A delegate that checked `isCancelled` a moment ago
    /// can therefore still respond or finish in between; only what it does after `didCancel` is a violation.
    func cancel(_ request: AVAssetResourceLoadingRequest) {
        guard request.core.markCancelled() else { return }
        guard let queue = delegateQueue else {
            request.core.cancellationDelivering()
            request.core.cancellationDelivered()
            return
        }
        let box = UncheckedBox(value: (self, request))
        queue.async {
            let (loader, request) = box.value
            // From here on, including inside didCancel itself, touching the request is a violation.
            request.core.cancellationDelivering()
            loader.delegate?.resourceLoader(loader, didCancel: request)
            request.core.cancellationDelivered()
        }
    }
}
#endif
