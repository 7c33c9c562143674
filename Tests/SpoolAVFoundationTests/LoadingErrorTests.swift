import Foundation
import Spool
import XCTest

@testable import SpoolAVFoundation

/// The error AVFoundation gets when the origin refused: an `NSURLErrorDomain` code an app knows, and the
/// origin's status itself under `SpoolAsset.originStatusKey`.
final class LoadingErrorTests: XCTestCase {
    func testAnOriginsRefusalCarriesItsStatus() {
        let cases: [(Int, Int)] = [
            (404, NSURLErrorFileDoesNotExist), (410, NSURLErrorFileDoesNotExist),
            (401, NSURLErrorUserAuthenticationRequired), (403, NSURLErrorNoPermissionsToReadFile),
            (429, NSURLErrorBadServerResponse), (503, NSURLErrorBadServerResponse),
        ]
        for (status, code) in cases {
            let error = LoadingError.nsError(for: SpoolError.httpStatus(status, retryAfter: "5"))
            XCTAssertEqual(error.domain, NSURLErrorDomain)
            XCTAssertEqual(error.code, code, "\(status)")
            XCTAssertEqual(error.userInfo[SpoolAsset.originStatusKey] as? Int, status)
            XCTAssertEqual(error.localizedDescription, "origin answered HTTP \(status)")
        }
        let network = LoadingError.nsError(for: SpoolError.network("reset"))
        XCTAssertNil(network.userInfo[SpoolAsset.originStatusKey], "no status where the origin gave none")
    }
}
