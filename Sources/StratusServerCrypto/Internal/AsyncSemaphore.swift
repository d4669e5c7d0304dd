/// A counting semaphore for async code: at most `limit` holders at once, others wait in FIFO order.
///
/// Waiting suspends the task (it never blocks a thread), and a waiting task
/// that is cancelled stops waiting and throws `CancellationError` without
/// taking a permit.
actor AsyncSemaphore {
    private var available: Int
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextWaiterID: UInt64 = 0

    /// Creates a semaphore with `limit` permits.
    init(limit: Int) {
        precondition(limit > 0, "AsyncSemaphore needs at least one permit, got \(limit)")
        available = limit
    }

    /// Runs `body` while holding a permit, and releases the permit however `body` ends.
    nonisolated func withPermit<Result: Sendable>(
        _ body: @Sendable () async throws -> Result
    ) async throws -> Result {
        try await acquire()
        do {
            let result = try await body()
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Takes a permit, waiting for one if none is free.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before a permit is granted.
    func acquire() async throws {
        try Task.checkCancellation()
        if available > 0 {
            available -= 1
            return
        }
        let id = nextWaiterID
        nextWaiterID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // This closure runs synchronously on the actor, so the waiter is
                // queued before any `cancelWaiter` hop can run.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().continuation.resume()
        }
    }

    private func cancelWaiter(_ id: UInt64) {
        // If the waiter already got its permit, it is no longer queued and keeps it.
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}
