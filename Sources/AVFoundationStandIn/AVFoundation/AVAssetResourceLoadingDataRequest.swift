import Foundation

/// Stand-in for AVFoundation's `AVAssetResourceLoadingDataRequest`: the byte range the player wants.
open class AVAssetResourceLoadingDataRequest: NSObject {
    /// The first byte wanted.
    public let requestedOffset: Int64
    /// How many bytes are wanted; for a to-end request the remaining length, which Apple says to ignore.
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
