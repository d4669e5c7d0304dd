import Synchronization

/// The lock and the continuations around ``CourierStateMachine``: parks long-polls without holding a thread.
///
/// ```swift
/// // The next item for `token`, waiting up to 30 s for one to be signalled.
/// func poll(_ waiters: CourierWaiters, token: String, user: String, limits: CourierLimits, next: () throws -> Data?) async throws -> Data? {
///     guard case .success(let id) = waiters.register(token: token, user: user, limits: limits, continuing: false) else { return nil }
///     if let item = try next() {
///         waiters.remove(id)                     // nothing to wait for
///         return item
///     }
///     guard await waiters.wait(id, timeout: .seconds(30)) == .signalled else { return nil }
///     return try next()
/// }
/// ```
final class CourierWaiters: Sendable {
    typealias Machine = CourierStateMachine<CheckedContinuation<CourierWake, Never>>
    typealias Wake = CourierWake

    private let state = Mutex(Machine())

    /// Registers a poll on `token` of `user` within `limits` (see ``CourierStateMachine``); a poll
    /// it supersedes is resumed with ``CourierWake/superseded``.
    func register(token: String, user: String, limits: CourierLimits, continuing: Bool) -> Result<Machine.WaiterID, CourierRefusal> {
        let admission = state.withLock { $0.register(token: token, user: user, limits: limits, continuing: continuing) }
        switch admission {
        case .registered(let id, let superseded):
            superseded?.resume(returning: .superseded)
            return .success(id)
        case .refused(let refusal):
            return .failure(refusal)
        }
    }

    /// Forgets a registered poll that did not need to wait.
    func remove(_ id: Machine.WaiterID) {
        state.withLock { $0.remove(id) }
    }

    /// Waits until the poll's token is signalled, `timeout` passes, the task is cancelled or the courier closes.
    func wait(_ id: Machine.WaiterID, timeout: Duration) async -> Wake {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { finish(id, because: .timedOut) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let action = state.withLock { $0.suspend(id, with: continuation) }
                if case .resume(let continuation, let wake) = action {
                    continuation.resume(returning: wake)
                }
            }
        } onCancel: {
            finish(id, because: .cancelled)
        }
    }

    /// Wakes every poll parked on these tokens.
    func signal(_ tokens: some Sequence<String>) {
        let resumed = state.withLock { $0.signal(tokens) }
        for continuation in resumed { continuation.resume(returning: .signalled) }
    }

    /// Ends every poll now and refuses new ones (server shutdown).
    func close() {
        let resumed = state.withLock { $0.close() }
        for continuation in resumed { continuation.resume(returning: .closed) }
    }

    /// Polls registered or parked right now.
    var count: Int { state.withLock { $0.count } }

    private func finish(_ id: Machine.WaiterID, because wake: Wake) {
        let continuation = state.withLock { $0.finish(id, because: wake) }
        continuation?.resume(returning: wake)
    }
}
