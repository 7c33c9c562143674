#if os(Linux)
import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingDataRequest`: the byte range the player wants.
///
/// Checked against the iOS 17.2 and iOS 18.0 SDKs' `AVAssetResourceLoader.h` (no copy of Xcode 26's was found): not
/// Sendable; `requestedOffset`
/// and `currentOffset` are `long long`, `requestedLength` is `NSInteger`, `requestsAllDataToEndOfResource`
/// is iOS 9.
open class AVAssetResourceLoadingDataRequest: NSObject {
    /// The first byte wanted.
    public let requestedOffset: Int64
    /// How many bytes are wanted. For a to-end request AVFoundation reports the remaining length once it
    /// knows the resource's length and `NSIntegerMax` (`Int.max`) before; either way it is to be ignored.
    public let requestedLength: Int
    /// True when the player wants everything from `requestedOffset` to the end of the resource.
    public let requestsAllDataToEndOfResource: Bool
    private let core: LoadingRequestCore

    init(core: LoadingRequestCore, requestedOffset: Int64, requestedLength: Int, toEnd: Bool) {
        self.core = core
        self.requestedOffset = requestedOffset
        self.requestedLength = requestedLength
        self.requestsAllDataToEndOfResource = toEnd
        super.init()
    }

    /// The offset of the next byte to respond: `requestedOffset` plus everything responded so far.
    public var currentOffset: Int64 { core.currentOffset }

    /// Hands `data` to the player; it must be the bytes starting at `currentOffset`, which then advances.
    public func respond(with data: Data) {
        core.respond(data)
    }
}
#endif
