import Foundation

/// The sync session's state, without I/O: what to do next given what happened.
///
/// The ``SyncController`` actor feeds it events and acts on what it returns: work starting and
/// ending (the status), what the server said that contradicts what the device believed (its zone,
/// its token, a record), and the push courier's registrations.
struct SyncSessionStateMachine: Sendable {
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

    /// A local change may have moved the server ahead of what was committed.
    mutating func serverMayHaveChanged() { fetchOutstanding = true }

    private mutating func updateCaughtUp() {
        status.isCaughtUp = !status.isPaused && !status.isSyncing && status.pendingCount == 0 && !fetchOutstanding
            && status.lastError == nil
    }

    // MARK: Server facts

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

    /// A fetch runs now: a drain stopped for a gone record may go on after it.
    mutating func refetchStarted() { refetchRequested = false }

    // MARK: Push

    /// Push starts (its subscriptions were just saved).
    mutating func pushStarted() { registrations = 0 }

    /// The courier registered a push token.
    mutating func courierListening() -> ListeningAction {
        registrations += 1
        return registrations == 1 ? .catchUp : .resubscribeAndCatchUp
    }
}
