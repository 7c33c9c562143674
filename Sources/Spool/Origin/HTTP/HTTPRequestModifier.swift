import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension HTTPOrigin {
    /// Changes every request the origin sends: adds an `Authorization` header, signs the URL, sets a user agent.
    /// It runs for content-information requests and range requests alike, so a token set here never needs to be
    /// in the URL (and so never in the cache key).
    public typealias RequestModifier = @Sendable (inout URLRequest) async throws -> Void

    /// A modifier that sets each of `fields` on every request, replacing any value of the same name.
    package static func settingHeaders(_ fields: [String: String]) -> RequestModifier {
        { request in
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        }
    }
}
