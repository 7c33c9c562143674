#if !os(watchOS)
#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif

/// The adapter's one member newer than its deployment target (iOS 15, macOS 12), behind the availability
/// check Xcode requires and with the fallback older systems get.
extension AVAssetResourceLoadingContentInformationRequest {
    /// Sets `isEntireLengthAvailableOnDemand` where the system has it (iOS 16, macOS 13, tvOS 16).
    ///
    /// The flag only tells AVFoundation it may skip some start-up buffering for a resource that is wholly on
    /// disk. Older systems have no such hint and need none to play correctly: they buffer a fully cached
    /// resource as they would a remote one, and every request is still answered from disk at its speed.
    func setEntireLengthAvailableOnDemandWhereAvailable(_ available: Bool) {
        #if os(Linux)
        // `#available` is always true on Linux; the stand-in's request says which release it models.
        guard standInSystem.hasEntireLengthAvailableOnDemand else { return }
        #endif
        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, *) {
            isEntireLengthAvailableOnDemand = available
        }
    }
}
#endif
