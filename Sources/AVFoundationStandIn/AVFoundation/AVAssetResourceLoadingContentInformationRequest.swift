#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingContentInformationRequest`: the delegate fills in
/// the resource's type and length before finishing the request.
///
/// Checked against the iOS 17.2 and iOS 18.0 SDKs' `AVAssetResourceLoader.h` (no copy of Xcode 26's was found): not
/// Sendable; `contentType` is
/// `copy, nullable`; `allowedContentTypes` read-only and nullable (iOS 11.2); `contentLength` is
/// `long long`; `entireLengthAvailableOnDemand` is iOS 16 (macOS 13, tvOS 16): on an older `standInSystem`
/// touching it is reported, as the crash it is on such a device.
open class AVAssetResourceLoadingContentInformationRequest: NSObject {
    private struct Fields {
        var contentType: String?
        var contentLength: Int64 = 0
        var isByteRangeAccessSupported = false
        var isEntireLengthAvailableOnDemand: Bool?
        /// Members the delegate touched that `system` lacks (each a crash on a device).
        var unavailableUses: Set<String> = []
    }

    // Set by the delegate, read by the simulator at finish: possibly on different threads.
    private let fields = Locked(Fields())
    private let allowed: [String]?

    /// The system this request comes from (Linux only: on a device that is the device's).
    public let standInSystem: StandInSystem

    init(allowedContentTypes: [String]?, system: StandInSystem) {
        allowed = allowedContentTypes
        standInSystem = system
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

    /// The types the player accepts, when it says: `finishLoading()` raises an Objective-C exception (the
    /// app crashes) if this is non-empty and `contentType` is not one of them (iOS 18.0 header; in practice
    /// `NSInternalInconsistencyException`, "Must respond with a contentType contained in …"). `nil` when not stated.
    @available(iOS 11.2, macOS 10.13.2, tvOS 11.2, *)
    public var allowedContentTypes: [String]? { allowed }

    /// Whether the whole resource can be read on demand (iOS 16); stored, not interpreted. On an older
    /// `standInSystem` the member does not exist: a use is recorded and fails the simulation.
    @available(iOS 16.0, macOS 13.0, tvOS 16.0, *)
    public var isEntireLengthAvailableOnDemand: Bool {
        get {
            fields.withLock { fields in
                noteUnavailable("isEntireLengthAvailableOnDemand", in: &fields)
                return fields.isEntireLengthAvailableOnDemand ?? false
            }
        }
        set {
            fields.withLock { fields in
                noteUnavailable("setEntireLengthAvailableOnDemand:", in: &fields)
                fields.isEntireLengthAvailableOnDemand = newValue
            }
        }
    }

    /// What the delegate left in `isEntireLengthAvailableOnDemand`; `nil` when it never set it.
    var entireLengthAvailableOnDemandSet: Bool? {
        fields.withLock { $0.isEntireLengthAvailableOnDemand }
    }

    /// The members touched that `standInSystem` lacks, as a device would name them in its crash.
    var unavailableUses: [String] {
        fields.withLock { $0.unavailableUses.sorted() }
    }

    private func noteUnavailable(_ selector: String, in fields: inout Fields) {
        guard !standInSystem.hasEntireLengthAvailableOnDemand else { return }
        fields.unavailableUses.insert(selector)
    }
}
#endif
