import Foundation

/// The conditions a source reports and the consumers of its `updates()`: shared by `SettableConditions` and
/// `SystemConditions`, which differ only in who changes them. Not `Subscribers`: a new consumer's first value
/// and its subscription happen under the conditions' own lock, so no change falls between them.
final class ConditionsBroadcast: Sendable {
    private struct State {
        var conditions: DeviceConditions
        var subscribers: [Int: AsyncStream<DeviceConditions>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let state: LockedBox<State>

    init(_ conditions: DeviceConditions) {
        state = LockedBox(State(conditions: conditions))
    }

    var current: DeviceConditions {
        state.withLock { $0.conditions }
    }

    /// Applies `change`, and tells the consumers if the conditions changed.
    func change(_ change: (inout DeviceConditions) -> Void) {
        let (conditions, subscribers) = state.withLock {
            state -> (DeviceConditions?, [AsyncStream<DeviceConditions>.Continuation]) in
            var conditions = state.conditions
            change(&conditions)
            guard conditions != state.conditions else { return (nil, []) }
            state.conditions = conditions
            return (conditions, Array(state.subscribers.values))
        }
        guard let conditions else { return }
        for subscriber in subscribers { subscriber.yield(conditions) }
    }

    /// The current conditions, then each change, until the consumer stops iterating.
    func updates() -> AsyncStream<DeviceConditions> {
        // Only the newest matters: a consumer that looks late sees the conditions as they are.
        let (stream, continuation) = AsyncStream.makeStream(
            of: DeviceConditions.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            // Under the lock, so no change falls between the first value and the subscription.
            continuation.yield(state.conditions)
            return state.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }
}
