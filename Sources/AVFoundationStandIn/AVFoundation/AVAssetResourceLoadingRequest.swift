#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingRequest`: one request of the player, handed to the
/// delegate, answered with `dataRequest?.respond(with:)` and ended with `finishLoading`.
///
/// Checked against the iOS 17.2 and iOS 18.0 SDKs' `AVAssetResourceLoader.h` (no copy of Xcode 26's was found): not
/// Sendable, not isolated;
/// `request` is `nonnull`, `contentInformationRequest` and `dataRequest` nullable, `finishLoadingWithError:`
/// takes a nullable error.
open class AVAssetResourceLoadingRequest: NSObject {
    /// The URL request, with the asset's URL and a `Range` header like AVFoundation's.
    public let request: URLRequest
    /// Present when the player asks for the resource's type and length.
    public let contentInformationRequest: AVAssetResourceLoadingContentInformationRequest?
    /// Present when the player asks for bytes.
    public let dataRequest: AVAssetResourceLoadingDataRequest?
    /// Shared with `dataRequest`; holds the lifecycle and performs the contract checks.
    let core: LoadingRequestCore

    /// What the simulator asks for: `length == nil` is a to-end request; `knownLength` is the resource
    /// length the player has learned so far (`nil` before any content-information request finished).
    struct Shape {
        var info: Bool
        var data: Bool
        var offset: Int64
        var length: Int64?
        var knownLength: Int64?
        var allowedContentTypes: [String]?
        /// The system the player runs on: what its content-information request offers.
        var system: StandInSystem
    }

    init(index: Int, url: URL, shape: Shape, loader: AVAssetResourceLoader, observer: (any LoadingRequestObserver)?) {
        var urlRequest = URLRequest(url: url)
        // AVFoundation's header form: a closed range, or an open one for "to the end of the resource".
        let range = shape.length.map { "bytes=\(shape.offset)-\(shape.offset + $0 - 1)" } ?? "bytes=\(shape.offset)-"
        urlRequest.setValue(range, forHTTPHeaderField: "Range")
        self.request = urlRequest
        let information =
            shape.info
            ? AVAssetResourceLoadingContentInformationRequest(
                allowedContentTypes: shape.allowedContentTypes, system: shape.system) : nil
        self.contentInformationRequest = information
        self.core = LoadingRequestCore(
            index: index, startOffset: shape.offset, hasData: shape.data,
            contentInformation: information, loader: loader, observer: observer)
        if shape.data {
            let requested = shape.length ?? shape.knownLength.map { max(0, $0 - shape.offset) } ?? Int64(Int.max)
            self.dataRequest = AVAssetResourceLoadingDataRequest(
                core: core, requestedOffset: shape.offset, requestedLength: Int(clamping: requested),
                toEnd: shape.length == nil)
        } else {
            self.dataRequest = nil
        }
        super.init()
    }

    /// True once `finishLoading()` or `finishLoading(with:)` has been called.
    public var isFinished: Bool { core.phase == .finished }

    /// True once the player cancelled the request; it turns true before the delegate hears `didCancel`,
    /// on whichever thread AVFoundation cancels from.
    public var isCancelled: Bool { core.phase == .cancelled }

    /// Ends the request successfully: AVFoundation takes what was responded as everything there is.
    public func finishLoading() {
        core.finish(error: nil)
    }

    /// Ends the request with `error` (or successfully when `nil`).
    public func finishLoading(with error: (any Error)?) {
        core.finish(error: error)
    }
}
#endif
