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

    /// The machine, the parked polls' deadlines and the one timer task that sleeps until the earliest.
    private struct State {
        var machine = Machine()
        var deadlines = CourierDeadlines()
        /// The running timer: the deadline it sleeps until and its generation (a replaced timer's task stops).
        var timer: (deadline: ContinuousClock.Instant, generation: UInt64, task: Task<Void, Never>)?
        var generation: UInt64 = 0

        /// No poll left: the timer stops and the deadlines of polls that ended otherwise go.
        mutating func stopTimerIfIdle() {
            if machine.count == 0 { stopTimer() }
        }

        mutating func stopTimer() {
            timer?.task.cancel()
            timer = nil
            deadlines.removeAll()
        }
    }

    private let state = Mutex(State())

    /// Registers a poll on `token` of `user` within `limits` (see ``CourierStateMachine``); a poll
    /// it supersedes is resumed with ``CourierWake/superseded``.
    func register(token: String, user: String, limits: CourierLimits, continuing: Bool) -> Result<Machine.WaiterID, CourierRefusal> {
        let admission = state.withLock { $0.machine.register(token: token, user: user, limits: limits, continuing: continuing) }
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
        state.withLock { state in
            state.machine.remove(id)
            state.stopTimerIfIdle()
        }
    }

    /// Waits until the poll's token is signalled, `timeout` passes, the task is cancelled or the courier closes.
    func wait(_ id: Machine.WaiterID, timeout: Duration) async -> Wake {
        await wait(id, until: .now + timeout)
    }

    /// Waits until the poll's token is signalled, `deadline` passes, the task is cancelled or the courier closes.
    ///
    /// No task per wait: the deadline joins ``CourierDeadlines`` and one timer task, started
    /// when the first poll parks and ended when none is left, times out every poll that is due.
    func wait(_ id: Machine.WaiterID, until deadline: ContinuousClock.Instant) async -> Wake {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let action = state.withLock { state in
                    let action = state.machine.suspend(id, with: continuation)
                    if case .parked = action { schedule(id, at: deadline, in: &state) }
                    return action
                }
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
        let resumed = state.withLock { state in
            defer { state.stopTimerIfIdle() }
            return state.machine.signal(tokens)
        }
        for continuation in resumed { continuation.resume(returning: .signalled) }
    }

    /// Ends every poll now and refuses new ones (server shutdown).
    func close() {
        let resumed = state.withLock { state in
            // Nothing parks after this: the timer stops even while registered polls are still on their way out.
            defer { state.stopTimer() }
            return state.machine.close()
        }
        for continuation in resumed { continuation.resume(returning: .closed) }
    }

    /// Polls registered or parked right now.
    var count: Int { state.withLock { $0.machine.count } }

    /// Deadlines held, stale ones of polls that ended otherwise included (tests: they are bounded).
    var deadlineCount: Int { state.withLock { $0.deadlines.count } }

    /// Whether a timer task is running (tests: none once no poll is parked).
    var hasTimer: Bool { state.withLock { $0.timer != nil } }

    private func finish(_ id: Machine.WaiterID, because wake: Wake) {
        let continuation = state.withLock { state in
            defer { state.stopTimerIfIdle() }
            return state.machine.finish(id, because: wake)
        }
        continuation?.resume(returning: wake)
    }

    /// Adds a parked poll's deadline; starts a timer when none runs or the running one sleeps past it.
    private func schedule(_ id: Machine.WaiterID, at deadline: ContinuousClock.Instant, in state: inout State) {
        // Entries of polls that ended otherwise stay until due; past twice the parked polls, drop them.
        if state.deadlines.count >= 2 * state.machine.count + 1024 {
            state.deadlines.compact { [machine = state.machine] in machine.contains($0) }
        }
        state.deadlines.insert(id, at: deadline)
        if let timer = state.timer, timer.deadline <= deadline { return }
        state.timer?.task.cancel()
        state.generation += 1
        let generation = state.generation
        state.timer = (deadline, generation, Task.detached { [self] in await runTimer(generation) })
    }

    /// The timer task: sleeps until the earliest deadline, times out the polls due, and again while any is left.
    private func runTimer(_ generation: UInt64) async {
        while let deadline = state.withLock({ $0.timer?.generation == generation ? $0.timer?.deadline : nil }) {
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return  // replaced by a timer for an earlier deadline, or closed
            }
            let expired = state.withLock { state -> [CheckedContinuation<Wake, Never>] in
                guard state.timer?.generation == generation else { return [] }
                let due = state.deadlines.popExpired(at: .now).compactMap { state.machine.finish($0, because: .timedOut) }
                if let next = state.deadlines.earliest, state.machine.count > 0 {
                    state.timer?.deadline = next
                } else {
                    state.stopTimer()
                }
                return due
            }
            for continuation in expired { continuation.resume(returning: .timedOut) }
        }
    }
}
