import Foundation

/// Decides the response to a request from the content and behaviour snapshot it arrived under.
enum Responder {
    /// Requests to this prefix + PATH serve PATH; it is where `redirect` points.
    static let redirectPrefix = "/__redirected__"

    static func plan(
        for request: HTTPRequestHead,
        behaviour: TestOriginBehaviour,
        resources: [String: ServedResource]
    ) -> OriginResponsePlan {
        if let status = behaviour.serverErrorStatus {
            return .text(
                status, HTTPStatus.reason(status), headers: behaviour.serverErrorFields.sorted { $0.key < $1.key })
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, HTTPStatus.reason(405), headers: [("Allow", "GET, HEAD")])
        }
        if request.method == "HEAD" && behaviour.refusesHead {
            return .text(405, HTTPStatus.reason(405), headers: [("Allow", "GET")])
        }
        if behaviour.redirectsToItself {
            return redirect(request, to: request.target, host: nil)
        }
        let path = request.path
        let isRedirected = path.hasPrefix(redirectPrefix)
        let contentPath = isRedirected ? String(path.dropFirst(redirectPrefix.count)) : path
        guard let resource = resources[contentPath] else {
            return .text(404, HTTPStatus.reason(404))
        }
        if behaviour.redirect && !isRedirected {
            return redirect(request, to: redirectPrefix + request.target, host: behaviour.redirectHost)
        }
        return contentResponse(request, resource: resource, behaviour: behaviour)
    }

    /// A 302 to `target` on the request's host, or on `host` with the request's port.
    private static func redirect(_ request: HTTPRequestHead, to target: String, host: String?) -> OriginResponsePlan {
        // An absolute Location is the most widely understood form, so build one from Host.
        guard var authority = request.headers["host"] else {
            return .text(302, HTTPStatus.reason(302), headers: [("Location", target)])
        }
        if let host {
            let colon = authority.lastIndex(of: ":").flatMap { authority[$0...].contains("]") ? nil : $0 }
            let port = colon.map { String(authority[$0...]) } ?? ""
            authority = host + port
        }
        return .text(302, HTTPStatus.reason(302), headers: [("Location", "http://\(authority)\(target)")])
    }

    private static func contentResponse(
        _ request: HTTPRequestHead,
        resource: ServedResource,
        behaviour: TestOriginBehaviour
    ) -> OriginResponsePlan {
        var headers: [(String, String)] = [("Content-Type", resource.contentType)]
        if !behaviour.ignoresRange { headers.append(("Accept-Ranges", "bytes")) }
        headers.append(("ETag", resource.etag))
        headers.append(("Last-Modified", resource.lastModified))

        let whole = 0..<resource.length
        guard !behaviour.ignoresRange, ifRangeHolds(request.headers["if-range"], for: resource) else {
            return OriginResponsePlan(status: 200, headers: headers, body: .content(resource, whole))
        }
        switch ByteRange.evaluate(request.headers["range"], length: resource.length) {
        case .full:
            return OriginResponsePlan(status: 200, headers: headers, body: .content(resource, whole))
        case .partial(let range):
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(resource.length)"))
            return OriginResponsePlan(status: 206, headers: headers, body: .content(resource, range))
        case .unsatisfiable:
            headers.removeAll { $0.0 == "Content-Type" }
            headers.append(("Content-Range", "bytes */\(resource.length)"))
            return OriginResponsePlan(status: 416, headers: headers, body: .none)
        }
    }

    /// RFC 9110 §13.1.5: the range applies only if If-Range matches the current validator,
    /// an ETag by strong comparison (weak tags never match) or the exact Last-Modified date.
    private static func ifRangeHolds(_ value: String?, for resource: ServedResource) -> Bool {
        guard let value else { return true }
        if value.hasPrefix("W/") { return false }
        return value == resource.etag || value == resource.lastModified
    }
}
