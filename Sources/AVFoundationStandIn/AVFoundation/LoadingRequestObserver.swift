#if os(Linux)
import Foundation

/// What a loading request reports to whoever drives it (the simulator); the checks that need the true
/// bytes and the script live on the other side of this protocol.
protocol LoadingRequestObserver: AnyObject {
    /// The delegate responded `data`, which starts at `offset` of the resource.
    func loadingRequest(_ index: Int, didRespond data: Data, at offset: Int64)
    /// The delegate called `finishLoading`; `currentOffset` is the data request's offset at that moment.
    func loadingRequest(
        _ index: Int, didFinishWith error: (any Error)?, info: ContentInformationSnapshot?, currentOffset: Int64?)
    /// The request was cancelled and the delegate told so.
    func loadingRequestWasCancelled(_ index: Int)
    /// The delegate broke the contract in a way only the request itself can see.
    func loadingRequest(_ index: Int, violation: String)
}

/// The content information as the delegate left it when finishing.
struct ContentInformationSnapshot: Sendable {
    var contentType: String?
    var contentLength: Int64
    var isByteRangeAccessSupported: Bool
    /// `nil` when the delegate never set it.
    var isEntireLengthAvailableOnDemand: Bool?
}
#endif
