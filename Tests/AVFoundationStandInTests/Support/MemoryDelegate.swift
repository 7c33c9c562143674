#if os(Linux)
import AVFoundationStandIn
import Foundation

/// A resource-loader delegate that serves `TestResource` bytes in 64 KiB chunks on its queue, the way
/// a correct adapter does: it answers the content information, responds from `currentOffset` as bytes
/// "arrive", stops at a cancel and finishes exactly once. Each `Fault` breaks one rule on purpose.
final class MemoryDelegate: NSObject, AVAssetResourceLoaderDelegate, @unchecked Sendable {
    enum Fault: Equatable {
        case none, mimeType, finishTwice, respondAfterCancel
        case wrongByte(at: Int64)
        case neverFinish, finishToEndEarly, respondOffQueue
        /// Sets an iOS 16 member without asking whether the system has it.
        case entireLengthUnconditionally
    }

    /// Requests cross into dispatch blocks; the stand-in keeps its classes non-Sendable, like Apple's.
    struct Box: @unchecked Sendable { let request: AVAssetResourceLoadingRequest }

    let queue = DispatchQueue(label: "MemoryDelegate")
    let length: Int64
    let fault: Fault
    let contentType: String
    private let chunk: Int64 = 64 * 1024
    private let log = NSLock()
    private var lengths: [Int] = []

    /// `requestedLength` of every data request received, in order.
    var requestedLengths: [Int] { log.withLock { lengths } }

    init(length: Int64, fault: Fault = .none, contentType: String = "public.mpeg-4") {
        self.length = length
        self.fault = fault
        self.contentType = contentType
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader,
        shouldWaitForLoadingOfRequestedResource loadingRequest: AVAssetResourceLoadingRequest
    ) -> Bool {
        if let info = loadingRequest.contentInformationRequest {
            info.contentType = fault == .mimeType ? "video/mp4" : contentType
            info.contentLength = length
            info.isByteRangeAccessSupported = true
            if fault == .entireLengthUnconditionally { info.isEntireLengthAvailableOnDemand = true }
        }
        if let data = loadingRequest.dataRequest {
            log.withLock { lengths.append(data.requestedLength) }
            send(Box(request: loadingRequest), from: data.requestedOffset)
        } else {
            finish(loadingRequest)
        }
        return true
    }

    func resourceLoader(
        _ resourceLoader: AVAssetResourceLoader, didCancel loadingRequest: AVAssetResourceLoadingRequest
    ) {
        // Nothing to stop: the next chunk checks `isCancelled` on this same queue. The faulty delegate touches
        // the request right here, which is already too late.
        if fault == .respondAfterCancel {
            loadingRequest.dataRequest?.respond(with: Data([0]))
            loadingRequest.finishLoading()
        }
    }

    private func send(_ box: Box, from offset: Int64) {
        (fault == .respondOffQueue ? DispatchQueue.global() : queue).async { [self] in
            let request = box.request
            guard let dataRequest = request.dataRequest, fault == .respondAfterCancel || !request.isCancelled else {
                return
            }
            let end =
                dataRequest.requestsAllDataToEndOfResource
                ? length : min(length, dataRequest.requestedOffset + Int64(dataRequest.requestedLength))
            // The faulty delegate leaves the request open at its end, so the player's cancel always comes first.
            guard offset < end else {
                return fault == .respondAfterCancel && dataRequest.requestsAllDataToEndOfResource ? () : finish(request)
            }
            let upper = min(end, offset + chunk)
            var bytes = TestResource.bytes(offset..<upper)
            if case .wrongByte(let at) = fault, (offset..<upper).contains(at) {
                bytes[Int(at - offset)] ^= 0xFF
            }
            dataRequest.respond(with: bytes)
            if fault == .finishToEndEarly, dataRequest.requestsAllDataToEndOfResource { return finish(request) }
            send(box, from: upper)
        }
    }

    private func finish(_ request: AVAssetResourceLoadingRequest) {
        guard fault != .neverFinish else { return }
        request.finishLoading()
        if fault == .finishTwice { request.finishLoading() }
    }
}
#endif
