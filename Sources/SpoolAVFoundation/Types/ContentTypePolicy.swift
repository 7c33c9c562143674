import Foundation

/// Whether a content type may be reported to a player that states `allowedContentTypes`.
///
/// `AVAssetResourceLoadingContentInformationRequest.h`: finishing a request whose `contentType` is not in a
/// non-empty `allowedContentTypes` raises an Objective-C exception, which crashes the app. Refusing with an
/// error instead lets the player fail that one item.
enum ContentTypePolicy {
    /// `nil` when `type` may be reported; otherwise why not. UTIs compare case-insensitively; a missing
    /// type cannot be promised to a player that restricts types.
    static func problem(type: String?, allowed: [String]?) -> String? {
        guard let allowed, !allowed.isEmpty else { return nil }
        if let type, allowed.contains(where: { $0.caseInsensitiveCompare(type) == .orderedSame }) { return nil }
        let shown = allowed.prefix(8).joined(separator: ", ") + (allowed.count > 8 ? ", …" : "")
        return "the player accepts only [\(shown)], and the resource's type is \(type ?? "unknown")"
    }
}
