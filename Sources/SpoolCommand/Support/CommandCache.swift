import Spool
import SpoolAsyncHTTPClient

/// A cache a command opened, with the HTTP client behind its origin.
struct CommandCache: Sendable {
    let cache: SpoolCache
    let transport: AsyncHTTPClientTransport

    /// Writes the cache index, then stops the HTTP client (which must be stopped before the process ends).
    func close() async {
        await cache.close()
        await transport.shutdown()
    }
}
