import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
