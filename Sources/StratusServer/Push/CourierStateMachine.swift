/// Who waits on which web courier token: the pure state of parked long-polls.
///
/// A poll first *registers* (so a notification committed while it checks the
/// queue is not missed), then *suspends* with its continuation. A commit
/// *signals* tokens; a timer or a cancelled request *finishes* a waiter; server
/// shutdown *closes* everything. Each transition returns the continuations the
/// driver must resume, outside its lock. No I/O, no clock: the driver
/// (``CourierWaiters``) owns both.
///
/// Registration is bounded (``CourierLimits``): a user may have so many polls, the node so
/// many in all. At a limit, a new poll on a token that already has one *supersedes* the
/// oldest of them (which answers empty: it is most likely a connection its client gave up
/// on), so a reconnecting client is never locked out by its own leftovers; a poll on any
/// other token is refused. A poll that registers again after a wake-up (``register(token:user:limits:continuing:)``
/// with `continuing`) already held its place and is never refused.
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
        var user: String
        var slot: Slot
    }

    private var nextID: UInt64 = 0
    private var waiters: [WaiterID: Waiter] = [:]
    private var byToken: [String: Set<WaiterID>] = [:]
    private var byUser: [String: Set<WaiterID>] = [:]
    private(set) var isClosed = false

    /// Parked or registered polls.
    var count: Int { waiters.count }

    /// Whether `id` is registered or parked.
    func contains(_ id: WaiterID) -> Bool { waiters[id] != nil }

    /// The outcome of ``register(token:user:limits:continuing:)``.
    enum Admission {
        /// Registered; resume `superseded` (if any) with ``Wake/superseded``.
        case registered(WaiterID, superseded: Continuation?)
        /// Not registered.
        case refused(CourierRefusal)
    }

    /// Registers a poll for `token`, without limits; `nil` once closed.
    mutating func register(token: String) -> WaiterID? {
        guard case .registered(let id, _) = register(token: token, user: token, limits: .unlimited, continuing: true) else { return nil }
        return id
    }

    /// Registers a poll for `token` of `user` within `limits`.
    ///
    /// - Parameters:
    ///   - token: The courier token polled.
    ///   - user: Whose poll it is (the token's owner), for the per-user limit.
    ///   - limits: The most polls per user and in all.
    ///   - continuing: The poll registered before and was woken to look at its queue again: no limit applies.
    mutating func register(token: String, user: String, limits: CourierLimits, continuing: Bool) -> Admission {
        guard !isClosed else { return .refused(.closed) }
        var superseded: Continuation?
        if !continuing, let refusal = limitReached(user: user, limits: limits) {
            // At a limit, a poll on a token that already has one replaces the oldest of those.
            guard let oldest = byToken[token]?.filter({ waiters[$0]?.isActive == true }).min(by: { $0.raw < $1.raw }) else {
                return .refused(refusal)
            }
            superseded = finish(oldest, because: .superseded)
        }
        nextID += 1
        let id = WaiterID(raw: nextID)
        waiters[id] = Waiter(token: token, user: user, slot: .armed)
        byToken[token, default: []].insert(id)
        byUser[user, default: []].insert(id)
        return .registered(id, superseded: superseded)
    }

    /// The limit a new poll of `user` would exceed, if any.
    private func limitReached(user: String, limits: CourierLimits) -> CourierRefusal? {
        let mine = byUser[user]?.count(where: { waiters[$0]?.isActive == true }) ?? 0
        if mine >= limits.perUser { return .userLimit(limits.perUser) }
        if waiters.count >= limits.total { return .totalLimit(limits.total) }
        return nil
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
        byUser[waiter.user]?.remove(id)
        if byUser[waiter.user]?.isEmpty == true { byUser[waiter.user] = nil }
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

extension CourierStateMachine.Waiter {
    /// Registered or parked, and not already told to stop (a woken waiter is on its way out).
    var isActive: Bool {
        if case .woken = slot { return false }
        return true
    }
}

/// Identifies one waiting poll.
struct CourierWaiterID: Hashable, Sendable {
    fileprivate let raw: UInt64
}

/// How many web-courier polls may be parked at once.
struct CourierLimits: Hashable, Sendable {
    /// Per user (over all their tokens).
    var perUser: Int
    /// On this node, in all.
    var total: Int

    /// No limit.
    static let unlimited = CourierLimits(perUser: .max, total: .max)
}

/// Why a poll was not registered.
enum CourierRefusal: Error, Hashable, Sendable {
    /// The courier is closed (shutdown).
    case closed
    /// The user has this many polls parked already.
    case userLimit(Int)
    /// The node has this many polls parked already.
    case totalLimit(Int)
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
    /// A newer poll on the same token took its place at a limit.
    case superseded
}

extension CourierStateMachine: Sendable where Continuation: Sendable {}
extension CourierStateMachine.Slot: Sendable where Continuation: Sendable {}
extension CourierStateMachine.Waiter: Sendable where Continuation: Sendable {}
extension CourierStateMachine.SuspendAction: Sendable where Continuation: Sendable {}
extension CourierStateMachine.Admission: Sendable where Continuation: Sendable {}
