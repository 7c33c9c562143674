#if !os(watchOS)
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
/// `@unchecked Sendable` because the request (not Sendable in the SDK) is touched only on the delegate queue,
/// and never after it ended (finished here, cancelled by AVFoundation, or released because the app gave up
/// on the asset): `ended` is read and written on that queue alone; `task` is set once, before any block
/// that reads it is queued.
final class LoadingRequestHandler: @unchecked Sendable {
    private let request: AVAssetResourceLoadingRequest
    private let queue: DispatchQueue
    private let cache: SpoolCache
    private let resource: Resource
    /// The asset's playback report, which this request adds to.
    private let playback: PlaybackRecording
    private var ended = false
    private var task: Task<Void, Never>?

    init(
        request: AVAssetResourceLoadingRequest, queue: DispatchQueue, cache: SpoolCache, resource: Resource,
        playback: PlaybackRecording
    ) {
        self.request = request
        self.queue = queue
        self.cache = cache
        self.resource = resource
        self.playback = playback
    }

    /// Starts loading; `onEnd` runs on the delegate queue once the request is finished. Call on the queue.
    func start(onEnd: @escaping @Sendable () -> Void) {
        let wantsInformation = request.contentInformationRequest != nil
        let wanted = request.dataRequest.map { data -> (offset: Int64, end: Int64?) in
            // A to-end request's length is NSIntegerMax before AVFoundation knows the resource's length, and
            // meant to be ignored after: only a bounded request has an end.
            guard !data.requestsAllDataToEndOfResource else { return (data.currentOffset, nil) }
            let (end, overflow) = data.requestedOffset.addingReportingOverflow(Int64(data.requestedLength))
            return (data.currentOffset, overflow ? nil : end)
        }
        let playbackRequest = playback.requestStarted()
        // What AVPlayer says of the request in CMCD (iOS 18's `sendsCommonMediaClientDataAsHTTPHeaders`, where
        // it reaches a resource loader), for the origin requests that serve it.
        let clientData = request.request.allHTTPHeaderFields.flatMap(CommonMediaClientData.init(headerFields:))
        playbackRequest.playerSent(clientData)
        task = Task { [self] in
            defer { playbackRequest.end() }
            do {
                // One read session per loading request: the content information, what is stored and the bytes
                // come from one lookup of the entry. A request for the content information alone (or its
                // two-byte probe) sizes a first origin request as for the player's reads that follow.
                let (offset, length): (Int64, Int64?)
                if let wanted {
                    (offset, length) = (wanted.offset, wanted.end.map { max(0, $0 - wanted.offset) })
                } else {
                    (offset, length) = (0, 0)
                }
                let session = try await cache.openRead(
                    resource, from: offset, length: length, purpose: .playback(), sizedAsPlayback: wantsInformation,
                    clientData: clientData)
                session.playback = playbackRequest
                if wantsInformation {
                    try await answerContentInformation(session)
                }
                if let wanted {
                    // A to-end request is what a player asks for and then cancels once it has enough. Served
                    // from disk, it runs ahead of the player: before it asks the origin for what follows the
                    // cached bytes, it gives the player `replayGrace` to cancel (a replay then costs nothing);
                    // a bounded request is wanted whole.
                    if wanted.end == nil {
                        let (grace, clock) = (Self.replayGrace, cache.clock)
                        session.consumer = { try await clock.sleep(until: clock.uptime + grace) }
                    }
                    while let chunk = try await session.next() {
                        guard await onQueue({ $0.dataRequest?.respond(with: chunk) }) != nil else { return }
                    }
                }
                await finish(with: nil, onEnd: onEnd)
            } catch {
                await finish(with: error, onEnd: onEnd)
            }
        }
    }

    /// How long a to-end request served from the cache waits for the player to cancel before it fetches
    /// what follows the cached bytes, in seconds of the cache's clock (as the proxy gives its clients).
    static let replayGrace: TimeInterval = 0.05

    /// Stops loading after AVFoundation cancelled the request. Call on the queue.
    func cancel() {
        ended = true
        task?.cancel()
    }

    /// Finishes the request with `NSURLErrorCancelled` and stops loading: the app gave up on the asset, and
    /// AVFoundation itself never cancels such requests. Call on the queue.
    func release() {
        task?.cancel()
        guard !ended else { return }
        ended = true
        if !request.isCancelled, !request.isFinished {
            request.finishLoading(with: LoadingError.nsError(for: CancellationError()))
        }
    }

    /// Fills in the content information. The type must be one the player allows: AVFoundation raises an
    /// Objective-C exception (the app crashes) when it is not, so a type outside the list is an error here.
    private func answerContentInformation(_ session: ReadSession) async throws {
        // The player waited for this (a start, which preloads gave way to); what was stored comes with it.
        let info = session.info
        let fullyCached = session.storedBefore.byteCount == info.length
        let type = UniformTypeMapping.uniformType(mimeType: info.mimeType, url: resource.url)
        if type == UniformTypeMapping.playlistType {
            throw LoadingError.playlistNeedsProxy(resource.url)
        }
        let refusal: String?? = await onQueue { request -> String? in
            guard let information = request.contentInformationRequest else { return nil }
            if let problem = ContentTypePolicy.problem(type: type, allowed: information.allowedContentTypes) {
                return problem
            }
            information.contentType = type
            information.contentLength = info.length
            // Spool serves any range, even from an origin without range support.
            information.isByteRangeAccessSupported = true
            information.setEntireLengthAvailableOnDemandWhereAvailable(fullyCached)
            return nil
        }
        switch refusal {
        case nil: throw CancellationError()
        case let problem??: throw LoadingError.contentTypeNotAllowed(problem)
        case .some(nil): break
        }
    }

    private func finish(with error: (any Error)?, onEnd: @escaping @Sendable () -> Void) async {
        let finished: Void? = await onQueue { request in
            if let error {
                request.finishLoading(with: LoadingError.nsError(for: error))
            } else {
                request.finishLoading()
            }
        }
        if finished != nil {
            queue.async {
                self.ended = true
                onEnd()
            }
        }
    }

    /// Runs `body` on the delegate queue unless the request has ended; returns its result, or `nil` if it did
    /// not run. Waiting for it also paces the engine: the next chunk is pulled once AVFoundation has taken
    /// this one.
    @discardableResult
    private func onQueue<Result: Sendable>(
        _ body: @escaping @Sendable (AVAssetResourceLoadingRequest) -> Result
    ) async -> Result? {
        await withCheckedContinuation { continuation in
            queue.async {
                guard !self.ended, !self.request.isCancelled, !self.request.isFinished else {
                    return continuation.resume(returning: nil)
                }
                continuation.resume(returning: body(self.request))
            }
        }
    }
}
#endif
