// A Swift sample of the DocC article "Using the cache from Swift" (see ReadingThroughTheCache.swift).

// sample begins
import Foundation
import Spool
import SpoolAsyncHTTPClient

/// A cache whose origin requests go over AsyncHTTPClient, as on a server or in a command-line tool.
func serverCache(in directory: URL, token: String) throws -> (SpoolCache, AsyncHTTPClientTransport) {
    let transport = AsyncHTTPClientTransport()
    let origin = HTTPOrigin(transport: transport) { request in
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }
    let cache = try SpoolCache(configuration: SpoolConfiguration(directory: directory, origin: origin))
    // When done: `await cache.close()`, then `await transport.shutdown()`.
    return (cache, transport)
}
// sample ends
