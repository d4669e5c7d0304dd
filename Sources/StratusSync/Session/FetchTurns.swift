import Foundation

/// Identifies one fetch waiting for its turn (``FetchTurns``).
struct FetchWaitID: Hashable, Sendable {
    fileprivate let raw: UInt64
}

/// How a fetch waiting for its turn is woken.
enum FetchWake: Equatable, Sendable {
    /// The turn is the caller's: it fetches, then ends the turn (``FetchTurns/finished()``).
    case turn
    /// The caller's task was cancelled before its turn came: it does not fetch.
    case cancelled
}

/// Fetches one at a time, first come first served, without I/O: two syncs started together never
/// deliver the same changes twice. The turn passes from a fetch that ends straight to the oldest
/// waiting one, so a fetch requested meanwhile cannot overtake it.
struct FetchTurns<Waiter> {
    fileprivate enum Entry {
        /// Waiting for its turn; `nil` until the caller parks its continuation.
        case waiting(Waiter?)
        /// Handed the turn before it parked: it takes it as soon as it does.
        case granted
        /// Cancelled before it parked.
        case cancelled
    }

    /// Whether a fetch holds the turn.
    private(set) var isRunning = false
    private var nextID: UInt64 = 0
    /// The waiting fetches, oldest first.
    private var queue: [(id: FetchWaitID, entry: Entry)] = []

    /// What the driver does after ``request()``.
    enum Request: Equatable, Sendable {
        /// Fetch now (the turn is the caller's).
        case run
        /// Park with ``park(_:with:)`` until the turn comes.
        case wait(FetchWaitID)
    }

    /// What the driver does after ``park(_:with:)``.
    enum Park {
        /// Parked until its turn (or a cancellation).
        case parked
        /// Resume the continuation now.
        case resume(Waiter, FetchWake)
    }

    /// Fetches waiting for their turn.
    var waiting: Int { queue.count }

    /// Asks for the turn: the caller runs now, or waits behind the fetches already waiting.
    mutating func request() -> Request {
        guard isRunning else {
            isRunning = true
            return .run
        }
        nextID += 1
        let id = FetchWaitID(raw: nextID)
        queue.append((id, .waiting(nil)))
        return .wait(id)
    }

    /// Parks a waiting caller until its turn, or hands it back to be resumed at once.
    mutating func park(_ id: FetchWaitID, with waiter: Waiter) -> Park {
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return .resume(waiter, .cancelled) }
        switch queue[index].entry {
        case .waiting:
            queue[index].entry = .waiting(waiter)
            return .parked
        case .granted:
            queue.remove(at: index)
            return .resume(waiter, .turn)
        case .cancelled:
            queue.remove(at: index)
            return .resume(waiter, .cancelled)
        }
    }

    /// The fetch holding the turn ended: returns the oldest parked caller to resume with
    /// ``FetchWake/turn`` (the turn stays taken, now theirs), if any.
    mutating func finished() -> Waiter? {
        while let first = queue.first {
            switch first.entry {
            case .waiting(let waiter?):
                queue.removeFirst()
                return waiter
            case .waiting(nil):
                queue[0].entry = .granted  // it parks right after: the turn is kept for it
                return nil
            case .granted:
                return nil
            case .cancelled:
                queue.removeFirst()
            }
        }
        isRunning = false
        return nil
    }

    /// The caller's task was cancelled: returns its continuation to resume with
    /// ``FetchWake/cancelled`` if it was parked. A caller already handed the turn keeps it.
    mutating func cancel(_ id: FetchWaitID) -> Waiter? {
        guard let index = queue.firstIndex(where: { $0.id == id }) else { return nil }
        switch queue[index].entry {
        case .waiting(let waiter?):
            queue.remove(at: index)
            return waiter
        case .waiting(nil):
            queue[index].entry = .cancelled
            return nil
        case .granted, .cancelled:
            return nil
        }
    }
}

extension FetchTurns: Sendable where Waiter: Sendable {}
extension FetchTurns.Entry: Sendable where Waiter: Sendable {}
extension FetchTurns.Park: Sendable where Waiter: Sendable {}
