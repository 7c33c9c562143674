import AsyncHTTPClient
import Spool

/// AsyncHTTPClient's failures in the terms `HTTPTransport` promises.
enum TransportErrors {
    private static let timeouts: [HTTPClientError] = [
        .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .getConnectionFromPoolTimeout,
    ]

    /// `SpoolError.timedOut` for every timeout, `CancellationError` for a cancellation, `SpoolError`s as
    /// they are, and `SpoolError.network` for everything else (refused or broken connections, TLS, parsing).
    static func spoolError(_ error: any Error) -> any Error {
        if error is CancellationError || error is SpoolError { return error }
        if let clientError = error as? HTTPClientError {
            if clientError == .cancelled { return CancellationError() }
            if timeouts.contains(clientError) { return SpoolError.timedOut }
        }
        return SpoolError.network(String(describing: error))
    }
}
