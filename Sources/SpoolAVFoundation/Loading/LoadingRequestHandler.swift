#if canImport(AVFoundation)
import AVFoundation
#else
import AVFoundationStandIn
#endif
import Foundation
import Spool

/// Answers one loading request from the engine: content information first, then the data from
/// `currentOffset`, each chunk handed over as it arrives, then exactly one finish.
///
/// The request is touched only on the delegate queue, and never after it ended (finished here or cancelled
/// by AVFoundation): `ended` is read and written on that queue alone.
final class LoadingRequestHandler: @unchecked Sendable {
    private let request: AVAssetResourceLoadingRequest
    private let queue: DispatchQueue
    private let cache: SpoolCache
    private let resource: Resource
    private var ended = false
    private var task: Task<Void, Never>?

    init(request: AVAssetResourceLoadingRequest, queue: DispatchQueue, cache: SpoolCache, resource: Resource) {
        self.request = request
        self.queue = queue
        self.cache = cache
        self.resource = resource
    }

    /// Starts loading; `onEnd` runs on the delegate queue once the request is finished. Call on the queue.
    func start(onEnd: @escaping @Sendable () -> Void) {
        let wantsInformation = request.contentInformationRequest != nil
        let wanted = request.dataRequest.map { data -> (offset: Int64, end: Int64?) in
            let end = data.requestsAllDataToEndOfResource ? nil : data.requestedOffset + Int64(data.requestedLength)
            return (data.currentOffset, end)
        }
        task = Task { [self] in
            do {
                if wantsInformation {
                    let info = try await cache.contentInfo(for: resource)
                    let fullyCached = cache.cachedRanges(for: resource).byteCount == info.length
                    let type = UniformTypeMapping.uniformType(mimeType: info.mimeType, url: resource.url)
                    guard await onQueue({ request in
                        guard let information = request.contentInformationRequest else { return }
                        information.contentType = type
                        information.contentLength = info.length
                        // Spool serves any range, even from an origin without range support.
                        information.isByteRangeAccessSupported = true
                        if #available(iOS 16.0, macOS 13.0, tvOS 16.0, *) {
                            information.isEntireLengthAvailableOnDemand = fullyCached
                        }
                    }) else { return }
                }
                if let wanted {
                    let length = wanted.end.map { max(0, $0 - wanted.offset) }
                    for try await chunk in cache.read(resource, from: wanted.offset, length: length) {
                        guard await onQueue({ $0.dataRequest?.respond(with: chunk) }) else { return }
                    }
                }
                await finish(with: nil, onEnd: onEnd)
            } catch {
                await finish(with: error, onEnd: onEnd)
            }
        }
    }

    /// Stops loading after AVFoundation cancelled the request. Call on the queue.
    func cancel() {
        ended = true
        task?.cancel()
    }

    private func finish(with error: (any Error)?, onEnd: @escaping @Sendable () -> Void) async {
        let finished = await onQueue { request in
            if let error { request.finishLoading(with: LoadingError.nsError(for: error)) } else { request.finishLoading() }
        }
        if finished {
            queue.async { self.ended = true; onEnd() }
        }
    }

    /// Runs `body` on the delegate queue unless the request has ended; returns whether it ran. Waiting for
    /// it also paces the engine: the next chunk is pulled once AVFoundation has taken this one.
    private func onQueue(_ body: @escaping @Sendable (AVAssetResourceLoadingRequest) -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async {
                guard !self.ended, !self.request.isCancelled, !self.request.isFinished else {
                    return continuation.resume(returning: false)
                }
                body(self.request)
                continuation.resume(returning: true)
            }
        }
    }
}
