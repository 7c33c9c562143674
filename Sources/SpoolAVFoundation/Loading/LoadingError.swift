import Foundation
import Spool

/// Turns engine failures into the `NSURLErrorDomain` errors AVFoundation and app code know how to treat.
enum LoadingError: Error {
    /// The resource is an HLS playlist: a resource loader serves one resource per asset, and AVFoundation
    /// loads HLS media segments only over HTTP, so playlists play through `SpoolProxy`.
    case playlistNeedsProxy(URL)
    /// The player's `allowedContentTypes` exclude the resource's type (the reason says which).
    case contentTypeNotAllowed(String)

    static func nsError(for error: any Error) -> NSError {
        let code: Int
        let reason: String
        if let loading = error as? LoadingError {
            switch loading {
            case .playlistNeedsProxy(let url):
                (code, reason) = (
                    NSURLErrorUnsupportedURL,
                    "\(url.lastPathComponent) is an HLS playlist; SpoolAsset plays single "
                        + "files (MP3, MP4, …): play HLS through SpoolProxy's url(for:) instead"
                )
            case .contentTypeNotAllowed(let problem):
                (code, reason) = (NSURLErrorCannotDecodeContentData, problem)
            }
            return NSError(domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: reason])
        }
        switch error as? SpoolError {
        case .unsupportedScheme?: (code, reason) = (NSURLErrorUnsupportedURL, "\(error)")
        case .httpStatus(let status, _, _)?:
            let statusCode: Int =
                switch status {
                case 404, 410: NSURLErrorFileDoesNotExist
                case 401, 407: NSURLErrorUserAuthenticationRequired
                case 403: NSURLErrorNoPermissionsToReadFile
                default: NSURLErrorBadServerResponse
                }
            // The status itself too: an app refreshes an expired signed URL on 403, waits on 429 or 503.
            return NSError(
                domain: NSURLErrorDomain, code: statusCode,
                userInfo: [NSLocalizedDescriptionKey: "\(error)", SpoolAsset.originStatusKey: status])
        case .network?: (code, reason) = (NSURLErrorNetworkConnectionLost, "\(error)")
        case .timedOut?: (code, reason) = (NSURLErrorTimedOut, "\(error)")
        case .truncatedBody?: (code, reason) = (NSURLErrorNetworkConnectionLost, "\(error)")
        case .invalidResponse?, .rangeNotSatisfiable?: (code, reason) = (NSURLErrorBadServerResponse, "\(error)")
        case .resourceChanged?: (code, reason) = (NSURLErrorResourceUnavailable, "\(error)")
        case .notCached?: (code, reason) = (NSURLErrorNotConnectedToInternet, "\(error)")
        case .storage?: (code, reason) = (NSURLErrorCannotWriteToFile, "\(error)")
        case nil:
            if error is CancellationError {
                (code, reason) = (NSURLErrorCancelled, "cancelled")
            } else {
                (code, reason) = (NSURLErrorUnknown, "\(error)")
            }
        }
        return NSError(domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: reason])
    }
}
