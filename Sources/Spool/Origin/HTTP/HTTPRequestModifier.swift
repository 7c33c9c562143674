import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Changes every request the HTTP origin sends: adds an `Authorization` header, signs the URL, sets a
/// user agent. It runs for content-information requests and range requests alike, so a token set here
/// never needs to be in the URL (and so never in the cache key).
public struct HTTPRequestModifier: Sendable {
    private let body: @Sendable (inout URLRequest) async throws -> Void

    /// A modifier that runs `body` on each request before it is sent.
    public init(_ body: @escaping @Sendable (inout URLRequest) async throws -> Void) {
        self.body = body
    }

    /// A modifier that sets each of `fields` on every request, replacing any value of the same name.
    public static func headers(_ fields: [String: String]) -> HTTPRequestModifier {
        HTTPRequestModifier { request in
            for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        }
    }

    /// Applies the modifier to `request`.
    package func apply(to request: inout URLRequest) async throws {
        try await body(&request)
    }
}
