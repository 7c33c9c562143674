import Foundation
import Spool
import SpoolAsyncHTTPClient
import XCTest

/// The transports `HTTPOrigin`'s behaviour is checked over.
enum OriginTransport: String, Sendable {
    /// URLSession, the core's default.
    case urlSession
    /// AsyncHTTPClient, from `SpoolAsyncHTTPClient`.
    case asyncHTTPClient
    /// URLSession as on Apple's platforms, whose bodies pause (`PushingTransport`).
    case pushedBodies

    /// A new origin over this transport (its own session or client, as after a restart); an AsyncHTTPClient
    /// is shut down when `test` ends.
    func makeOrigin(for test: XCTestCase, modifier: HTTPOrigin.RequestModifier? = nil, timeout: TimeInterval = 10)
        -> HTTPOrigin
    {
        switch self {
        case .urlSession:
            return HTTPOrigin(modifier: modifier, timeout: timeout)
        case .asyncHTTPClient:
            let transport = AsyncHTTPClientTransport()
            test.addTeardownBlock { await transport.shutdown() }
            return HTTPOrigin(transport: transport, modifier: modifier, timeout: timeout)
        case .pushedBodies:
            let transport = PushingTransport()
            test.addTeardownBlock { await transport.shutdown() }
            return HTTPOrigin(transport: transport, modifier: modifier, timeout: timeout)
        }
    }
}
