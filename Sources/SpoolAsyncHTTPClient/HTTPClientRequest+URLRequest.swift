import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1

extension HTTPClientRequest {
    /// The same request as `request` (to `url`): method, header fields and body.
    init(_ request: URLRequest, url: URL) {
        self.init(url: url.absoluteString)
        method = HTTPMethod(rawValue: request.httpMethod ?? "GET")
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.add(name: name, value: value)
        }
        if let body = request.httpBody {
            self.body = .bytes(ByteBuffer(bytes: body))
        }
    }
}
