import Foundation

/// The sync session's state, without I/O: what to do next given what happened.
///
/// The ``SyncController`` actor feeds it events and performs what it returns — it keeps no session
/// state of its own. Here live the status (work starting and ending, pause), the fetch queue
/// (``FetchTurns``: one fetch at a time, first come first served), the outbox drain
/// (``OutboxDrainState``: whether one runs, what is in flight, and every caller waiting for it with
/// its own continuation and its entry's outcome), the follow-up sync and the reconnection retry,
/// what the server said that contradicts what the device believed (its zone, its token, a record),
/// and the push courier's registrations.
///
/// The waiters are generic so that tests drive the machine with plain values; the controller uses
/// checked continuations.
struct SyncSessionStateMachine<FetchWaiter, DrainWaiter> {
    private(set) var status = SyncStatus()
    /// Whether the server may hold changes this device has not committed.
    private var fetchOutstanding = true
    /// Uploads and fetches running now (they nest: a sync drains the outbox, then fetches).
    private var activeWork = 0
    /// Whether the zone is known to exist on the server (created, or confirmed by a request).
    private(set) var zoneReady = false
    /// Fetches committed in this session (a record found gone after one was is gone for good).
    private var commits = 0
    /// Records an update found gone from the server, with the commit count when that happened.
    private var goneRecords: [String: Int] = [:]
    /// Whether a drain stopped because a record was gone, and a fetch must run before it goes on.
    private(set) var refetchRequested = false
    /// Push tokens registered since push started.
    private var registrations = 0
    /// The courier registered again after a reconnection: the next push-triggered sync saves the
    /// subscriptions first.
    private(set) var resubscribePending = false
    private var fetches = FetchTurns<FetchWaiter>()
    private var drain = OutboxDrainState<DrainWaiter>()
    /// Whether a follow-up sync (after a drain outside a sync found a record gone) runs.
    private(set) var followUpRunning = false
    /// Whether the reconnection retry runs.
    private(set) var reconnecting = false
    /// Whether failures start the reconnection retry (``SyncConfiguration/reconnectInterval`` is set).
    let reconnects: Bool

    /// A session at launch.
    ///
    /// - Parameter reconnects: Whether failures start the reconnection retry.
    init(reconnects: Bool = true) {
        self.reconnects = reconnects
    }

    /// What the controller should do.
    enum Action: Equatable, Sendable {
        /// Run the work.
        case run
        /// Do nothing: paused.
        case skipPaused
    }

    /// What a fact the server contradicted asks of the controller.
    enum Contradiction: Equatable, Sendable {
        /// The zone does not exist (deleted, or a new server): forget that it was created, make it
        /// again, and recover (re-queue what the server lost).
        case zoneNotFound
        /// The server refused the change token (a recreated zone, a restored database): recover.
        case tokenRefused
    }

    /// What to do with an update the server answered "unknown item" (the record is not there).
    enum GoneRecordAction: Equatable, Sendable {
        /// Stop the drain and fetch first: the feed says whether another device deleted it (the
        /// deletion wins) or the server lost it (recovery re-creates it).
        case fetchFirst
        /// A fetch committed since and said neither: the server lost the record; create it again.
        case recreate
    }

    /// What a push token registration asks for.
    enum ListeningAction: Equatable, Sendable {
        /// Fetch what changed while no token was registered.
        case catchUp
        /// A reconnection: save the subscriptions again (a reset server lost them), then catch up.
        case resubscribeAndCatchUp
    }

    /// What the controller does when a drain ends.
    struct DrainEnd {
        /// The callers to wake, in the order they registered.
        var resume: [(DrainWaiter, DrainWake)]
        /// Start a follow-up sync: the drain stopped for a record gone and no sync waited for it
        /// (a sync fetches right after its drain; a save's drain needs one in the background).
        var startFollowUp: Bool
    }

    // MARK: Work and status

    mutating func pause() {
        status.isPaused = true
        status.isCaughtUp = false
    }

    /// Resuming asks for a sync (the outbox is replayed and the server checked).
    mutating func resume() -> Action {
        status.isPaused = false
        return .run
    }

    mutating func beginWork() -> Action {
        guard !status.isPaused else { return .skipPaused }
        activeWork += 1
        status.isSyncing = true
        return .run
    }

    mutating func endWork(pending: Int, error: String?) {
        activeWork = max(0, activeWork - 1)
        status.isSyncing = activeWork > 0
        status.pendingCount = pending
        status.lastError = error
        if pending > 0 || error != nil { status.isCaughtUp = false }
        updateCaughtUp()
    }

    /// Work that failed outside a sync (starting push): shown in the status.
    mutating func failed(_ error: String) {
        status.lastError = error
        status.isCaughtUp = false
    }

    mutating func outboxChanged(pending: Int) {
        status.pendingCount = pending
        if pending > 0 { status.isCaughtUp = false }
    }

    /// A fetch was delivered to the delegate, awaiting its commit.
    mutating func fetched() { fetchOutstanding = true }

    /// The delegate committed a fetch that reached the end of the server's change feed.
    mutating func committed(date: Date) {
        status.lastSyncDate = date
        fetchOutstanding = false
        commits += 1
        updateCaughtUp()
    }

    /// The last committed sync date, read from the bookkeeping at launch.
    mutating func restoreLastSyncDate(_ date: Date) { status.lastSyncDate = date }

    private mutating func updateCaughtUp() {
        status.isCaughtUp =
            !status.isPaused && !status.isSyncing && status.pendingCount == 0 && !fetchOutstanding
            && status.lastError == nil
    }

    // MARK: Fetches

    /// Asks for the fetch turn (``FetchTurns/request()``).
    mutating func requestFetch() -> FetchTurns<FetchWaiter>.Request { fetches.request() }

    /// Parks a fetch until its turn (``FetchTurns/park(_:with:)``).
    mutating func parkFetch(_ id: FetchWaitID, with waiter: FetchWaiter) -> FetchTurns<FetchWaiter>.Park {
        fetches.park(id, with: waiter)
    }

    /// A waiting fetch's task was cancelled (``FetchTurns/cancel(_:)``).
    mutating func cancelFetch(_ id: FetchWaitID) -> FetchWaiter? { fetches.cancel(id) }

    /// A fetch took the turn and runs now: a drain stopped for a gone record may go on after it.
    mutating func fetchStarted() { refetchRequested = false }

    /// The fetch holding the turn ended; returns the next one to resume (``FetchTurns/finished()``).
    mutating func fetchEnded() -> FetchWaiter? { fetches.finished() }

    /// Fetches waiting for their turn.
    var fetchesWaiting: Int { fetches.waiting }

    /// Whether a fetch holds the turn.
    var isFetching: Bool { fetches.isRunning }
}

// MARK: The outbox drain

extension SyncSessionStateMachine {
    /// The entries up to this sequence number are being uploaded (a save never folds into them).
    var inFlight: Int64? { drain.inFlight }

    /// Whether a drain runs.
    var isDraining: Bool { drain.isRunning }

    /// Callers waiting for the drain (registered, not woken yet).
    var drainWaiting: Int { drain.waiting }

    /// Registers a caller that will wait for the drain (``OutboxDrainState/register(_:)``).
    mutating func registerDrainWaiter(_ purpose: DrainPurpose) -> DrainWaitID { drain.register(purpose) }

    /// A registered caller that will not wait (``OutboxDrainState/withdraw(_:)``).
    mutating func withdrawDrainWaiter(_ id: DrainWaitID) -> EntryOutcome? { drain.withdraw(id) }

    /// Asks for a drain: start one, or join the one running.
    mutating func requestDrain() -> OutboxDrainState<DrainWaiter>.Request { drain.request() }

    /// Parks a registered caller until the drain ends (``OutboxDrainState/park(_:with:)``).
    mutating func parkDrainWaiter(_ id: DrainWaitID, with waiter: DrainWaiter) -> OutboxDrainState<DrainWaiter>.Park {
        drain.park(id, with: waiter)
    }

    /// A waiting caller's task was cancelled (``OutboxDrainState/cancel(_:)``).
    mutating func cancelDrainWaiter(_ id: DrainWaitID) -> DrainWaiter? { drain.cancel(id) }

    /// The drain's task starts: it uploads unless paused meanwhile.
    mutating func drainStarted() -> Action { beginWork() }

    /// Before each request of a drain: go on, or stop (paused; the rest stays queued).
    var mayUploadNext: Bool { !status.isPaused }

    /// A request of the drain starts: the entries up to `seq` are in flight.
    mutating func uploadStarted(through seq: Int64) { drain.uploadStarted(through: seq) }

    /// The request ended, answered or not.
    mutating func uploadEnded() { drain.uploadEnded() }

    /// An entry left the outbox: its outcome goes to the callers waiting for it; the server may hold
    /// a change this device has not fetched; one entry less is pending (no count of the outbox per
    /// record, which made draining a large outbox quadratic).
    mutating func entrySettled(_ seq: Int64, _ outcome: EntryOutcome) {
        drain.settled(seq, outcome)
        fetchOutstanding = true
        outboxChanged(pending: max(0, status.pendingCount - 1))
    }

    /// A fetch's commit dropped these outbox entries (another device's deletion won over them): their
    /// callers wait for the report (``OutboxDrainState/dropped(_:)``).
    mutating func fetchDropped(_ seqs: [Int64]) { drain.dropped(seqs) }

    /// The delegate heard of the entries a fetch dropped: the callers to wake now
    /// (``OutboxDrainState/reported(_:)``).
    mutating func dropsReported(_ seqs: [Int64]) -> [(DrainWaiter, DrainWake)] { drain.reported(seqs) }

    /// The drain ended after running (`failure`: what stopped it, `nil` when the outbox emptied or
    /// the drain was paused or stopped for a fetch): the work ends, and its callers are woken.
    mutating func drainFinished(failure: (any Error)?, pending: Int) -> DrainEnd {
        endWork(pending: pending, error: failure.map { "\($0)" })
        return drainEnded(failure: failure)
    }

    /// The drain's task found the session paused and did nothing: its callers are woken (their
    /// entries stay queued).
    mutating func drainSkipped() -> DrainEnd {
        drainEnded(failure: nil)
    }

    private mutating func drainEnded(failure: (any Error)?) -> DrainEnd {
        let (resume, syncWaited) = drain.finished(failure: failure)
        let followUp = refetchRequested && !syncWaited && followUpRequested()
        return DrainEnd(resume: resume, startFollowUp: followUp)
    }

    // MARK: Background syncs

    /// Asks for a follow-up sync (a drain outside a sync found a record gone, or an upload got no
    /// answer): `true` to start one, `false` when one runs already or sync is paused.
    mutating func followUpRequested() -> Bool {
        guard !followUpRunning, !status.isPaused else { return false }
        followUpRunning = true
        return true
    }

    /// The follow-up sync ended.
    mutating func followUpEnded() { followUpRunning = false }

    /// Asks for the reconnection retry after a failure: `true` to start it; `false` when it runs
    /// already, is turned off, or sync is paused.
    mutating func reconnectRequested() -> Bool {
        guard reconnects, !reconnecting, !status.isPaused else { return false }
        reconnecting = true
        return true
    }

    /// The reconnection retry ended (the server answered, it was cancelled, or sync paused).
    mutating func reconnectEnded() { reconnecting = false }
}

// MARK: Server facts and push

extension SyncSessionStateMachine {
    /// The zone exists (just created, or the bookkeeping says so).
    mutating func zoneConfirmed() { zoneReady = true }

    /// The server contradicted what the device believed: a recovery begins (the zone, if it is
    /// missing, must be made again; the server may hold changes this device has not committed).
    mutating func contradicted(_ contradiction: Contradiction) {
        switch contradiction {
        case .zoneNotFound: zoneReady = false
        case .tokenRefused: break
        }
        fetchOutstanding = true
        status.isCaughtUp = false
    }

    /// An update of `recordName` found the record gone.
    mutating func recordGone(_ recordName: String) -> GoneRecordAction {
        if let seen = goneRecords[recordName], commits > seen {
            goneRecords[recordName] = nil
            return .recreate
        }
        goneRecords[recordName] = commits
        refetchRequested = true
        return .fetchFirst
    }

    /// Push starts (its subscriptions were just saved).
    mutating func pushStarted() {
        registrations = 0
        resubscribePending = false
    }

    /// The courier registered a push token.
    mutating func courierListening() -> ListeningAction {
        registrations += 1
        guard registrations > 1 else { return .catchUp }
        resubscribePending = true
        return .resubscribeAndCatchUp
    }

    /// A push-triggered sync begins: `true` when it must save the subscriptions first (the flag is
    /// taken; ``resubscribeFailed()`` puts it back).
    mutating func takeResubscribe() -> Bool {
        defer { resubscribePending = false }
        return resubscribePending
    }

    /// Saving the subscriptions again failed: the next push-triggered sync tries again.
    mutating func resubscribeFailed() { resubscribePending = true }
}

extension SyncSessionStateMachine: Sendable where FetchWaiter: Sendable, DrainWaiter: Sendable {}
extension SyncSessionStateMachine.DrainEnd: Sendable where DrainWaiter: Sendable {}
