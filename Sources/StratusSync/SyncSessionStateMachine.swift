import Foundation

/// The sync session's state, without I/O: what to do next given what happened.
///
/// The ``SyncController`` actor feeds it events and acts on what it returns.
struct SyncSessionStateMachine: Sendable {
    private(set) var status = SyncStatus()
    /// Whether the server may hold changes this device has not committed.
    private var fetchOutstanding = true
    /// Uploads and fetches running now (they nest: a sync drains the outbox, then fetches).
    private var activeWork = 0

    /// What the controller should do.
    enum Action: Equatable, Sendable {
        /// Run the work.
        case run
        /// Do nothing: paused.
        case skipPaused
    }

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
}
