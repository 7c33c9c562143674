import Foundation
import SpoolProxy

/// Reads a proxy's events as a test waits for them, each wait bounded.
struct EventRecorder: Sendable {
    private let stream: AsyncStream<ProxyEvent>

    init(_ proxy: SpoolProxy) {
        stream = proxy.events()
    }

    /// The next event that `matches`, skipping others; `nil` if none came within `timeout`.
    func next(
        within timeout: Duration = .seconds(10), where matches: @escaping @Sendable (ProxyEvent) -> Bool = { _ in true }
    ) async -> ProxyEvent? {
        await withTaskGroup(of: ProxyEvent?.self) { group in
            group.addTask { [stream] in
                for await event in stream where matches(event) { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
