/// Who waits on which web courier token: the pure state of parked long-polls.
///
/// A poll first *registers* (so a notification committed while it checks the
/// queue is not missed), then *suspends* with its continuation. A commit
/// *signals* tokens; a timer or a cancelled request *finishes* a waiter; server
/// shutdown *closes* everything. Each transition returns the continuations the
/// driver must resume, outside its lock. No I/O, no clock: the driver
/// (``CourierWaiters``) owns both.
struct CourierStateMachine<Continuation> {
    typealias WaiterID = CourierWaiterID
    typealias Wake = CourierWake

    fileprivate enum Slot {
        /// Registered, not yet suspended, nothing happened.
        case armed
        /// Parked with its continuation.
        case suspended(Continuation)
        /// Woken before it suspended; it resumes at once when it does.
        case woken(Wake)
    }

    fileprivate struct Waiter {
        var token: String
        var slot: Slot
    }

    private var nextID: UInt64 = 0
    private var waiters: [WaiterID: Waiter] = [:]
    private var byToken: [String: Set<WaiterID>] = [:]
    private(set) var isClosed = false

    /// Parked or registered polls.
    var count: Int { waiters.count }

    /// Registers a poll for `token`; `nil` once closed.
    mutating func register(token: String) -> WaiterID? {
        guard !isClosed else { return nil }
        nextID += 1
        let id = WaiterID(raw: nextID)
        waiters[id] = Waiter(token: token, slot: .armed)
        byToken[token, default: []].insert(id)
        return id
    }

    /// What the driver does after ``suspend(_:with:)``.
    enum SuspendAction {
        /// Parked; something else resumes it later.
        case parked
        /// Resume the continuation now with this reason (it was woken, or never registered).
        case resume(Continuation, Wake)
    }

    /// Parks a registered poll with its continuation, or hands it back to be resumed at once.
    mutating func suspend(_ id: WaiterID, with continuation: Continuation) -> SuspendAction {
        guard let waiter = waiters[id] else { return .resume(continuation, isClosed ? .closed : .cancelled) }
        switch waiter.slot {
        case .armed:
            waiters[id]?.slot = .suspended(continuation)
            return .parked
        case .woken(let wake):
            remove(id)
            return .resume(continuation, wake)
        case .suspended:
            preconditionFailure("courier waiter suspended twice")
        }
    }

    /// Wakes every poll of these tokens; returns the parked ones to resume with ``Wake/signalled``.
    mutating func signal<Tokens: Sequence>(_ tokens: Tokens) -> [Continuation] where Tokens.Element == String {
        var resumed: [Continuation] = []
        for token in tokens {
            for id in byToken[token] ?? [] {
                switch waiters[id]?.slot {
                case .armed: waiters[id]?.slot = .woken(.signalled)
                case .suspended(let continuation):
                    remove(id)
                    resumed.append(continuation)
                case .woken, nil: break
                }
            }
        }
        return resumed
    }

    /// Ends one waiter (timeout or cancellation); returns its continuation if it was parked.
    mutating func finish(_ id: WaiterID, because wake: Wake) -> Continuation? {
        switch waiters[id]?.slot {
        case .armed:
            waiters[id]?.slot = .woken(wake)
            return nil
        case .suspended(let continuation):
            remove(id)
            return continuation
        case .woken, nil:
            return nil
        }
    }

    /// Forgets a waiter that found a notification without parking.
    mutating func remove(_ id: WaiterID) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        byToken[waiter.token]?.remove(id)
        if byToken[waiter.token]?.isEmpty == true { byToken[waiter.token] = nil }
    }

    /// Closes the courier: every parked poll is returned to be resumed with ``Wake/closed``; later registrations fail.
    mutating func close() -> [Continuation] {
        isClosed = true
        var resumed: [Continuation] = []
        for (id, waiter) in waiters {
            switch waiter.slot {
            case .armed: waiters[id]?.slot = .woken(.closed)
            case .suspended(let continuation):
                remove(id)
                resumed.append(continuation)
            case .woken: break
            }
        }
        return resumed
    }
}

/// Identifies one waiting poll.
struct CourierWaiterID: Hashable, Sendable {
    fileprivate let raw: UInt64
}

/// Why a web courier poll stopped waiting.
enum CourierWake: Hashable, Sendable {
    /// A notification was queued for its token: check the queue again.
    case signalled
    /// Its time ran out.
    case timedOut
    /// Its request was cancelled.
    case cancelled
    /// The server is shutting down.
    case closed
}

extension CourierStateMachine: Sendable where Continuation: Sendable {}
extension CourierStateMachine.Slot: Sendable where Continuation: Sendable {}
extension CourierStateMachine.Waiter: Sendable where Continuation: Sendable {}
extension CourierStateMachine.SuspendAction: Sendable where Continuation: Sendable {}
