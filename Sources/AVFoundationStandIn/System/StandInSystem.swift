#if os(Linux)
import Foundation

/// The Apple system the stand-in plays: the package supports iOS 15 and macOS 12 on, and what AVFoundation
/// offers differs between those releases. A `PlayerSimulator` made for `.iOS15` hands the delegate requests
/// as iOS 15 would: members that release lacks are absent, and touching one is the crash it is on a device
/// ("unrecognized selector sent to instance"), reported as a failure of the simulation.
///
/// On a device an adapter asks `if #available(iOS 16.0, *)`; on Linux that check is always true, so the
/// adapter's Linux build asks the request's `standInSystem` instead, and both paths are exercised here.
public struct StandInSystem: Sendable, Hashable, CustomStringConvertible {
    /// The platforms the package supports.
    public enum Platform: String, Sendable, Hashable {
        case iOS, macOS, tvOS
    }

    /// The platform.
    public let platform: Platform
    /// The major version: 15 for iOS 15.
    public let major: Int

    /// A system of `platform`, release `major`.
    public init(_ platform: Platform, _ major: Int) {
        self.platform = platform
        self.major = major
    }

    /// iOS 15, the package's oldest iOS.
    public static let iOS15 = StandInSystem(.iOS, 15)
    /// iOS 16, the first with `isEntireLengthAvailableOnDemand`.
    public static let iOS16 = StandInSystem(.iOS, 16)
    /// iOS 17, the first with `MainActor.assumeIsolated` in its Swift runtime.
    public static let iOS17 = StandInSystem(.iOS, 17)
    /// iOS 18, whose SDK the stand-in's isolation follows (the default).
    public static let iOS18 = StandInSystem(.iOS, 18)
    /// macOS 12, the package's oldest macOS.
    public static let macOS12 = StandInSystem(.macOS, 12)
    /// macOS 13.
    public static let macOS13 = StandInSystem(.macOS, 13)

    /// Whether the system is at least the given release of its platform; another platform's release never
    /// counts.
    public func isAtLeast(iOS: Int, macOS: Int, tvOS: Int) -> Bool {
        switch platform {
        case .iOS: major >= iOS
        case .macOS: major >= macOS
        case .tvOS: major >= tvOS
        }
    }

    /// `AVAssetResourceLoadingContentInformationRequest.isEntireLengthAvailableOnDemand`: iOS 16, macOS 13,
    /// tvOS 16 (`API_AVAILABLE` in `AVAssetResourceLoader.h`).
    public var hasEntireLengthAvailableOnDemand: Bool {
        isAtLeast(iOS: 16, macOS: 13, tvOS: 16)
    }

    /// "iOS 15".
    public var description: String { "\(platform.rawValue) \(major)" }
}
#endif
