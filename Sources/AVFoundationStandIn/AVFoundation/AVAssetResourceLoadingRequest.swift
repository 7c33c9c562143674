import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingRequest`: one request of the player, handed to the
/// delegate, answered with `dataRequest?.respond(with:)` and ended with `finishLoading`.
open class AVAssetResourceLoadingRequest: NSObject {
    /// The URL request, with the asset's URL and a `Range` header like AVFoundation's.
    public let request: URLRequest
    /// Present when the player asks for the resource's type and length.
    public let contentInformationRequest: AVAssetResourceLoadingContentInformationRequest?
    /// Present when the player asks for bytes.
    public let dataRequest: AVAssetResourceLoadingDataRequest?
    /// Shared with `dataRequest`; holds the lifecycle and performs the contract checks.
    let core: LoadingRequestCore

    init(index: Int, url: URL, info: Bool, data: Bool, offset: Int64, length: Int64?, resourceLength: Int64,
         loader: AVAssetResourceLoader, observer: (any LoadingRequestObserver)?) {
        var urlRequest = URLRequest(url: url)
        // AVFoundation's header form: a closed range, or an open one for "to the end of the resource".
        let range = length.map { "bytes=\(offset)-\(offset + $0 - 1)" } ?? "bytes=\(offset)-"
        urlRequest.setValue(range, forHTTPHeaderField: "Range")
        self.request = urlRequest
        let information = info ? AVAssetResourceLoadingContentInformationRequest() : nil
        self.contentInformationRequest = information
        self.core = LoadingRequestCore(index: index, startOffset: offset, hasData: data, contentInformation: information,
                                       loader: loader, observer: observer)
        if data {
            // For a to-end request AVFoundation reports the remaining length; Apple's docs say to ignore it.
            let requested = length ?? max(0, resourceLength - offset)
            self.dataRequest = AVAssetResourceLoadingDataRequest(
                core: core, requestedOffset: offset, requestedLength: Int(clamping: requested), toEnd: length == nil)
        } else {
            self.dataRequest = nil
        }
        super.init()
    }

    /// True once `finishLoading()` or `finishLoading(with:)` has been called.
    public var isFinished: Bool { core.phase == .finished }

    /// True once the player cancelled the request (set before the delegate hears `didCancel`).
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
