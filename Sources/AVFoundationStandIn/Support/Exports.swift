#if os(Linux)
// `import AVFoundation` brings Foundation (including `URLRequest`) into an adapter's file on Apple
// platforms; the stand-in re-exports the same so the adapter's one set of imports compiles on Linux too.
// On Linux `URLRequest` lives in FoundationNetworking.
@_exported import Dispatch
@_exported import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
#endif
