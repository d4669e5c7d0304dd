import Synchronization

/// The subscribers to a context's notifications; posting and subscribing work from any thread.
final class NotificationHub: Sendable {
    private struct State {
        var nextToken = 0
        var continuations: [Int: AsyncStream<ObjectContextNotification>.Continuation] = [:]
    }

    private let state = Mutex(State())
    /// The number of subscribers, readable without the lock on hot paths.
    private let subscriberCount = Atomic<Int>(0)

    /// A new stream that receives every notification posted from now on.
    func subscribe() -> AsyncStream<ObjectContextNotification> {
        let (stream, continuation) = AsyncStream<ObjectContextNotification>.makeStream()
        let token = state.withLock { state in
            let token = state.nextToken
            state.nextToken += 1
            state.continuations[token] = continuation
            subscriberCount.store(state.continuations.count, ordering: .relaxed)
            return token
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.state.withLock { state in
                _ = state.continuations.removeValue(forKey: token)
                self.subscriberCount.store(state.continuations.count, ordering: .relaxed)
            }
        }
        return stream
    }

    /// Whether anyone listens (to skip building notifications nobody reads).
    var hasSubscribers: Bool {
        subscriberCount.load(ordering: .relaxed) > 0
    }

    /// Sends `notification` to every subscriber.
    func post(_ notification: ObjectContextNotification) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            continuation.yield(notification)
        }
    }

    /// Ends every stream.
    func finish() {
        let continuations = state.withLock { state in
            let all = Array(state.continuations.values)
            state.continuations.removeAll()
            subscriberCount.store(0, ordering: .relaxed)
            return all
        }
        for continuation in continuations {
            continuation.finish()
        }
    }
}
