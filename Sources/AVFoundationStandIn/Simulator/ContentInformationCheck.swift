#if os(Linux)
import Foundation

/// What AVPlayer requires of the content information before a content-information request finishes.
struct ContentInformationCheck {
    var expectedLength: Int64
    var expectedType: String?

    /// Human-readable problems; empty when AVPlayer would accept the information.
    func problems(in info: ContentInformationSnapshot?) -> [String] {
        guard let info else { return ["no content information request to fill"] }
        var problems: [String] = []
        switch info.contentType {
        case nil:
            problems.append("contentType not set before finishLoading")
        case let type? where type.contains("/"):
            problems.append(
                "contentType \"\(type)\" is a MIME type; AVFoundation wants a UTI (AVPlayer fails with -11828)")
        case let type? where expectedType.map({ $0 != type }) ?? false:
            problems.append("contentType \"\(type)\", expected \"\(expectedType ?? "")\"")
        default:
            break
        }
        if info.contentLength != expectedLength {
            problems.append("contentLength \(info.contentLength), the resource has \(expectedLength) bytes")
        }
        if !info.isByteRangeAccessSupported {
            problems.append("isByteRangeAccessSupported is false; AVPlayer cannot seek (MP4 fails with -11850)")
        }
        return problems
    }
}
#endif
