import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingContentInformationRequest`: the delegate fills in
/// the resource's type and length before finishing the request.
open class AVAssetResourceLoadingContentInformationRequest: NSObject {
    private struct Fields {
        var contentType: String?
        var contentLength: Int64 = 0
        var isByteRangeAccessSupported = false
        var isEntireLengthAvailableOnDemand = false
    }

    // Set by the delegate, read by the simulator at finish: possibly on different threads.
    private let fields = Locked(Fields())

    override init() {
        super.init()
    }

    /// The resource's type as a **UTI** (`public.mp3`), not a MIME type; AVPlayer fails with -11828 otherwise.
    public var contentType: String? {
        get { fields.withLock { $0.contentType } }
        set { fields.withLock { $0.contentType = newValue } }
    }

    /// The total length of the resource in bytes.
    public var contentLength: Int64 {
        get { fields.withLock { $0.contentLength } }
        set { fields.withLock { $0.contentLength = newValue } }
    }

    /// Whether arbitrary byte ranges can be served; AVPlayer needs it to seek (and for MP4 at all).
    public var isByteRangeAccessSupported: Bool {
        get { fields.withLock { $0.isByteRangeAccessSupported } }
        set { fields.withLock { $0.isByteRangeAccessSupported = newValue } }
    }

    /// The types the player accepts; `nil` means "not stated", as the stand-in never restricts them.
    public var allowedContentTypes: [String]? { nil }

    /// Whether the whole resource can be read on demand (iOS 16); stored, not interpreted.
    public var isEntireLengthAvailableOnDemand: Bool {
        get { fields.withLock { $0.isEntireLengthAvailableOnDemand } }
        set { fields.withLock { $0.isEntireLengthAvailableOnDemand = newValue } }
    }
}
