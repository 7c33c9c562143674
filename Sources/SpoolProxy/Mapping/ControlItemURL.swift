import Foundation

/// The origin URL an item of the control APIs (`/preload`, `/downloads`) names: an app sends the proxy URL it
/// gives its player or the origin URL itself, and both mean the same resource.
enum ControlItemURL {
    /// The origin URL `text` names, on a host `configuration` allows; a `FailureResponse` (400, 403) naming
    /// item `number` otherwise. A proxy URL must carry a proof `signer` checks (the caller holds the control
    /// API's secret, but a URL the proxy never made is still not one of its own).
    static func origin(of text: String, number: Int, configuration: ProxyConfiguration, signer: URLSigner) throws
        -> URL
    {
        guard let url = URL(string: text) else {
            throw FailureResponse(status: 400, reason: "item \(number): not a URL")
        }
        let origin: URL
        if isProxyAddress(url, configuration: configuration),
            let mapped = try mapped(text, number: number, signer: signer)
        {
            origin = mapped
        } else {
            do {
                try ProxyURLMapping.validate(url)
            } catch {
                throw FailureResponse(status: 400, reason: "item \(number): \(error)")
            }
            origin = url
        }
        guard let host = origin.host, configuration.allows(host: host) else {
            throw FailureResponse(status: 403, reason: "item \(number): origin host not allowed")
        }
        return origin
    }

    /// The origin URL of proxy URL `text`; `nil` when its path is no proxy path (then it may be an origin
    /// URL); throws 403 when its proof does not match.
    private static func mapped(_ text: String, number: Int, signer: URLSigner) throws -> URL? {
        do {
            return try ProxyURLMapping.originURL(forRequestTarget: text, signer: signer)
        } catch ProxyURLError.forged {
            throw FailureResponse(status: 403, reason: "item \(number): \(ProxyURLError.forged)")
        } catch {
            return nil
        }
    }

    /// Whether `url` points at a proxy (a path alone, or a loopback or the proxy's own host): its path
    /// then names the origin URL. An origin URL is never read as one unless its path decodes as a proxy
    /// path, which a real origin's does not.
    private static func isProxyAddress(_ url: URL, configuration: ProxyConfiguration) -> Bool {
        guard let host = url.host?.lowercased() else { return url.path.hasPrefix("/") }
        let trimmed = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return ["127.0.0.1", "localhost", "::1", configuration.host.lowercased()].contains(trimmed)
    }
}
