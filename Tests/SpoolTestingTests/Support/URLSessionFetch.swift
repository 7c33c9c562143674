import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession helpers for tests: an ephemeral session with caching off, so every request
/// really reaches the origin.
enum Fetch {
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 10
        return URLSession(configuration: configuration)
    }

    /// Performs a request and returns the body and HTTP response.
    static func data(
        _ url: URL, method: String = "GET", headers: [String: String] = [:], session: URLSession? = nil
    ) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let owned = session == nil ? Self.session() : nil
        defer { owned?.finishTasksAndInvalidate() }
        let (data, response) = try await (session ?? owned!).data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}
