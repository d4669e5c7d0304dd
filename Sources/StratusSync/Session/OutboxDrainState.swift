import Foundation
import StratusClient

/// Identifies one caller waiting for the outbox drain (``OutboxDrainState``).
struct DrainWaitID: Hashable, Sendable, Comparable {
    fileprivate let raw: UInt64

    static func < (lhs: DrainWaitID, rhs: DrainWaitID) -> Bool { lhs.raw < rhs.raw }
}

/// What became of one outbox entry, for the `save()` or `delete()` that queued it.
enum EntryOutcome: Sendable {
    /// Uploaded (the record as saved; `nil` for a deletion, or an entry a fetch had dropped meanwhile).
    case saved(StratusClient.Record?)
    /// Refused by the server for good: dropped from the outbox and reported.
    case refused(SyncError)
}

/// Why a caller joins the drain.
enum DrainPurpose: Equatable, Sendable {
    /// A sync, which fetches right after the drain.
    case sync
    /// Queued changes (`save()`, `delete()`, `upload(_:)`); `seq` is the entry whose outcome the
    /// caller wants, if any.
    case change(seq: Int64?)
}

/// How a waiting caller is woken.
enum DrainWake: Sendable {
    /// The drain it joined ended. `outcome` is its entry's (`nil`: the entry is still queued — the
    /// drain was paused or failed before it, or it had none); `failure` is what stopped the drain.
    case drained(outcome: EntryOutcome?, failure: (any Error)?)
    /// The caller's task was cancelled; its changes stay queued and upload with the drain.
    case cancelled
}

/// The outbox drain's part of the session, without I/O: whether a drain runs, which entries are in
/// flight, and who waits for it — each caller with its own continuation (`Waiter`) and the outcome
/// of the entry it queued, kept in its own slot until the caller is woken.
///
/// A caller *registers* (before anything can settle its entry), then either *withdraws* (it will
/// not wait: paused, offline) or *requests* a drain and *parks* its continuation. An entry settling
/// records its outcome in the slots waiting for it; the drain's end wakes every parked caller with
/// its outcome. A caller registered but not parked when a drain ends keeps its slot (it is about to
/// request a drain of its own). Cancellation removes a parked caller and wakes it at once.
///
/// An entry a fetch dropped (another device's deletion won over the edit) is *reported* first: from
/// the fetch's commit until the delegate has heard of the conflict (``dropped(_:)``,
/// ``reported(_:)``) its callers stay parked — past the drain's end too — and the drain cannot
/// settle it, so a `save()` is never answered before the delegate knows what became of its edit
/// (Documentation/0009, decision 41).
struct OutboxDrainState<Waiter> {
    fileprivate enum SlotState {
        /// Registered; the caller has not parked yet.
        case armed
        /// Parked with its continuation until the drain ends.
        case parked(Waiter)
        /// Cancelled before it parked: it is woken as soon as it does.
        case cancelled
    }

    fileprivate struct Slot {
        var purpose: DrainPurpose
        var outcome: EntryOutcome?
        var state: SlotState
    }

    /// Whether a drain runs.
    private(set) var isRunning = false
    /// The last outbox sequence number of the request under way: a save queued meanwhile never folds
    /// into an entry up to it (its fields are on their way), and a re-queued save neither.
    private(set) var inFlight: Int64?
    private var nextID: UInt64 = 0
    private var slots: [DrainWaitID: Slot] = [:]
    /// The slots waiting for each entry.
    private var bySeq: [Int64: Set<DrainWaitID>] = [:]
    /// Entries a fetch dropped whose callers wait for the delegate to hear of it.
    private var reporting: Set<Int64> = []

    /// Callers registered and not woken yet.
    var waiting: Int { slots.count }

    /// What the driver does after ``request()``.
    enum Request: Equatable, Sendable {
        /// Start a drain (none runs).
        case start
        /// Join the drain already running: it goes on until the outbox is empty, so it reaches the
        /// entries just queued.
        case join
    }

    /// What the driver does after ``park(_:with:)``.
    enum Park {
        /// Parked: the drain's end (or a cancellation) wakes it.
        case parked
        /// Resume the continuation now.
        case resume(Waiter, DrainWake)
    }

    // MARK: Callers

    /// Registers a caller; from now on its entry's outcome is kept for it.
    mutating func register(_ purpose: DrainPurpose) -> DrainWaitID {
        nextID += 1
        let id = DrainWaitID(raw: nextID)
        slots[id] = Slot(purpose: purpose, state: .armed)
        if case .change(let seq?) = purpose { bySeq[seq, default: []].insert(id) }
        return id
    }

    /// A caller that will not wait after all (paused, offline): its slot goes; returns the outcome
    /// its entry got meanwhile, if any.
    mutating func withdraw(_ id: DrainWaitID) -> EntryOutcome? {
        remove(id)?.outcome
    }

    /// Asks for a drain: starts one unless one runs.
    mutating func request() -> Request {
        guard !isRunning else { return .join }
        isRunning = true
        return .start
    }

    /// Parks a registered caller until the drain ends, or hands it back to be resumed at once
    /// (cancelled before it parked, or no drain runs).
    mutating func park(_ id: DrainWaitID, with waiter: Waiter) -> Park {
        guard let slot = slots[id] else { return .resume(waiter, .cancelled) }
        switch slot.state {
        case .armed where isRunning || slot.purpose.isReporting(in: reporting):
            slots[id]?.state = .parked(waiter)
            return .parked
        case .armed:
            remove(id)
            return .resume(waiter, .drained(outcome: slot.outcome, failure: nil))
        case .cancelled:
            remove(id)
            return .resume(waiter, .cancelled)
        case .parked:
            preconditionFailure("a drain waiter parked twice")
        }
    }

    /// The caller's task was cancelled: returns its continuation to resume with ``DrainWake/cancelled``
    /// if it was parked; one not parked yet is woken when it parks.
    mutating func cancel(_ id: DrainWaitID) -> Waiter? {
        guard let slot = slots[id] else { return nil }
        switch slot.state {
        case .armed:
            slots[id]?.state = .cancelled
            return nil
        case .parked(let waiter):
            remove(id)
            return waiter
        case .cancelled:
            return nil
        }
    }

    // MARK: The drain

    /// A request of the drain starts: the entries up to `seq` are in flight.
    mutating func uploadStarted(through seq: Int64) {
        inFlight = seq
    }

    /// The request ended (answered or not).
    mutating func uploadEnded() {
        inFlight = nil
    }

    /// An entry left the outbox: its outcome goes to every caller waiting for it (an entry leaves
    /// once; what settles it first is what became of it).
    mutating func settled(_ seq: Int64, _ outcome: EntryOutcome) {
        guard !reporting.contains(seq), let ids = bySeq.removeValue(forKey: seq) else { return }
        for id in ids { slots[id]?.outcome = outcome }
    }

    // MARK: Entries a fetch dropped

    /// A fetch's commit dropped these entries from the outbox (a deletion won over them): their
    /// callers wait until ``reported(_:)``, and nothing else settles them meanwhile.
    mutating func dropped(_ seqs: [Int64]) {
        reporting.formUnion(seqs.filter { bySeq[$0] != nil })
    }

    /// The delegate has heard of the dropped entries (the conflicts after the fetch's commit): each
    /// one's callers get ``EntryOutcome/saved(_:)`` with no record; those parked are returned to be
    /// woken now, in the order they registered.
    mutating func reported(_ seqs: [Int64]) -> [(Waiter, DrainWake)] {
        var resume: [(DrainWaitID, Waiter)] = []
        for seq in seqs where reporting.remove(seq) != nil {
            for id in bySeq.removeValue(forKey: seq) ?? [] {
                slots[id]?.outcome = .saved(nil)
                guard case .parked(let waiter)? = slots[id]?.state else { continue }
                slots[id] = nil
                resume.append((id, waiter))
            }
        }
        return resume.sorted { $0.0 < $1.0 }.map { ($0.1, .drained(outcome: .saved(nil), failure: nil)) }
    }

    /// The drain ended (`failure`: what stopped it): every parked caller is returned with its wake,
    /// in the order they registered; callers registered and not parked keep their slots, and so do
    /// callers of an entry a fetch dropped whose report is under way.
    ///
    /// - Returns: The continuations to resume, and whether one of them was a sync.
    mutating func finished(failure: (any Error)?) -> (resume: [(Waiter, DrainWake)], syncWaited: Bool) {
        isRunning = false
        inFlight = nil
        var resume: [(Waiter, DrainWake)] = []
        var syncWaited = false
        for id in slots.keys.sorted() {
            guard let slot = slots[id], case .parked(let waiter) = slot.state, !slot.purpose.isReporting(in: reporting) else { continue }
            remove(id)
            if slot.purpose == .sync { syncWaited = true }
            resume.append((waiter, .drained(outcome: slot.outcome, failure: failure)))
        }
        return (resume, syncWaited)
    }

    @discardableResult
    private mutating func remove(_ id: DrainWaitID) -> Slot? {
        guard let slot = slots.removeValue(forKey: id) else { return nil }
        if case .change(let seq?) = slot.purpose {
            bySeq[seq]?.remove(id)
            if bySeq[seq]?.isEmpty == true { bySeq[seq] = nil }
        }
        return slot
    }
}

extension DrainPurpose {
    /// Whether the caller waits for an entry a fetch dropped, whose report is under way.
    fileprivate func isReporting(in reporting: Set<Int64>) -> Bool {
        guard case .change(let seq?) = self else { return false }
        return reporting.contains(seq)
    }
}

extension OutboxDrainState: Sendable where Waiter: Sendable {}
extension OutboxDrainState.SlotState: Sendable where Waiter: Sendable {}
extension OutboxDrainState.Slot: Sendable where Waiter: Sendable {}
extension OutboxDrainState.Park: Sendable where Waiter: Sendable {}
