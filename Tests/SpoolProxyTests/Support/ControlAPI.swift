import Foundation
import XCTest

/// Requests to the proxy's control APIs (`/preload`, `/downloads`) sent with curl, as an app in any language
/// sends them.
enum ControlAPI {
    /// `object` as JSON text.
    static func text(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Sends `method` to `path` of the fixture's proxy with `json` (an object) or `body`; returns the status
    /// and the body.
    static func call(
        _ fixture: ProxyFixture, _ method: String, _ path: String, json: Any? = nil, body: String = ""
    ) async throws -> (status: Int, body: Data, text: String) {
        let sent = try json.map(text) ?? body
        var arguments = ["--request", method, "--header", "Authorization: Bearer \(fixture.proxy.controlToken)"]
        if !sent.isEmpty { arguments += ["--header", "Content-Type: application/json", "--data-binary", sent] }
        let base = try XCTUnwrap(fixture.proxy.baseURL).absoluteString
        let answer = try await Curl.fetch(try XCTUnwrap(URL(string: base + path)), arguments)
        return (answer.status, answer.body, String(decoding: answer.body, as: UTF8.self))
    }
}
