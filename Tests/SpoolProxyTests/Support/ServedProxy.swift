import Foundation
import SpoolProxy
import XCTest

/// What a running `spool serve` wrote in its cache directory (`serve.json`): its base URL, the key its URLs
/// are signed with and its control API's token, read as `spool proxy-url` and `spool download` read them.
struct ServedProxy {
    let base: URL
    let key: ProxyURLKey
    let controlToken: String

    init(cacheDirectory: URL) throws {
        let data = try Data(contentsOf: cacheDirectory.appendingPathComponent("serve.json"))
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        base = try XCTUnwrap(URL(string: try XCTUnwrap(record["url"] as? String)))
        key = try ProxyURLKey(data: try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(record["urlKey"] as? String))))
        controlToken = try XCTUnwrap(record["controlToken"] as? String)
    }

    /// The proxy URL of `origin`, as `spool proxy-url` makes it.
    func url(for origin: URL) throws -> URL {
        try ProxyURLMapping(baseURL: base, key: key).proxyURL(for: origin)
    }

    /// curl's arguments that send the control token.
    var authorization: [String] { ["--header", "Authorization: Bearer \(controlToken)"] }
}
