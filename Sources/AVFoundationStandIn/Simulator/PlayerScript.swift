#if os(Linux)
import Foundation

/// The requests a simulated player issues, in order.
public struct PlayerScript: Sendable, Equatable {
    /// How far a to-end request without `cancelAfter` is read before it is cancelled (replay rule 2 of
    /// the traces: the recording ends there, a real player would read on).
    public static let defaultToEndReadLimit: Int64 = 4 * 1024 * 1024

    /// The requests, issued in order (see `ScriptedRequest.openWith`).
    public var requests: [ScriptedRequest]
    /// Read limit for to-end requests with `cancelAfter == nil`; `nil` reads them to the end of the
    /// resource. When the resource ends before the limit, the delegate must finish the request.
    public var toEndReadLimit: Int64?

    /// Creates a script.
    public init(requests: [ScriptedRequest], toEndReadLimit: Int64? = PlayerScript.defaultToEndReadLimit) {
        self.requests = requests
        self.toEndReadLimit = toEndReadLimit
    }
}

/// One request of a `PlayerScript`, shaped like a request AVFoundation makes.
public struct ScriptedRequest: Sendable, Equatable {
    /// The request carries a content-information request.
    public var info: Bool
    /// The request carries a data request.
    public var data: Bool
    /// The data request's `requestedOffset` (also the start of the `Range` header).
    public var offset: Int64
    /// The data request's `requestedLength`; `nil` means `requestsAllDataToEndOfResource`.
    public var length: Int64?
    /// The player cancels after receiving this many bytes of the request; `nil`: it is not cancelled
    /// (apart from the script's `toEndReadLimit`).
    public var cancelAfter: Int64?
    /// Indices of earlier requests that may still be open when this one is issued; every other earlier
    /// request must have finished or been cancelled first.
    public var openWith: [Int]

    /// Creates a scripted request.
    public init(
        info: Bool = false, data: Bool = true, offset: Int64, length: Int64?,
        cancelAfter: Int64? = nil, openWith: [Int] = []
    ) {
        self.info = info
        self.data = data
        self.offset = offset
        self.length = length
        self.cancelAfter = cancelAfter
        self.openWith = openWith
    }

    /// The `Range` header value AVFoundation would send for this request.
    public var rangeHeader: String {
        length.map { "bytes=\(offset)-\(offset + $0 - 1)" } ?? "bytes=\(offset)-"
    }
}
#endif
