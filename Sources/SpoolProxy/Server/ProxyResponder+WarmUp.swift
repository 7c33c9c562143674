import Foundation
import NIOHTTP1
import Spool

extension ProxyResponder {
    /// Runs once the proxy's own part of a first request, on a made-up URL and without touching the cache or
    /// the origin: the proxy path signed and checked, the origin URL parsed and named for the log, the range
    /// read and the response planned, and the cache's own warm-up (`SpoolCache.warmUp()`). A fresh
    /// `spool serve`'s first cold request otherwise paid these one-time costs on the event loop, mostly the
    /// Swift runtime's first look at generic types and, on Linux, ICU's IDNA tables; see
    /// `SpoolProxy.start()` for what it saves.
    func warmUp() {
        cache.warmUp()
        let origin = URL(string: "https://media.example/spool/warm-up.mp4?session=1")!
        // The URL as logs name it is the cache's warm-up's; the path's check and parse are the proxy's own.
        guard let path = try? ProxyURLMapping.proxyPath(for: origin, signer: secrets.signer),
            (try? ProxyURLMapping.originURL(forRequestTarget: path, signer: secrets.signer)) != nil
        else { return }
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Range", value: "bytes=0-")
        _ = Self.firstRead(head)
        let info = ContentInfo(length: 1, mimeType: "video/mp4", entityTag: "\"1\"")
        let plan = ResponsePlan(for: Self.planRequest(head), info: info, boundary: Self.makeBoundary())
        _ = responseHead(head, plan: plan, cacheState: "miss", keepAlive: true)
    }

    /// `warmUp()`, then a cold read rehearsed end to end against this proxy's own ping at `ping`
    /// (`SpoolCache.rehearseColdRead`), through the cache's origin's transport: the engine, the transport's
    /// connection and this server's answer run once before the first player's request. Only for an `HTTPOrigin`,
    /// whose transport can reach the ping; another origin gets `warmUp()` alone.
    func warmUp(rehearsingAgainst ping: URL) async {
        warmUp()
        guard let origin = cache.configuration.origin as? HTTPOrigin else { return }
        await SpoolCache.rehearseColdRead(of: ping, through: origin.rehearsal)
    }
}
