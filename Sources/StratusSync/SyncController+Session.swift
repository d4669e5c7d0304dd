import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    // MARK: Sync

    /// Uploads what is pending, then fetches the zone's changes since the last committed token and
    /// hands them to the delegate (which commits them with ``FinishSync``).
    ///
    /// Returns once everything it did is in the local store: fetched changes committed, and the
    /// values conflict resolutions produced handed to the delegate. After a device's zone was lost
    /// (deleted, or a new server) it recovers first: whatever the server no longer has is queued
    /// again and uploaded, never applied as deletions.
    ///
    /// - Returns: The changes delivered to the delegate (empty when paused or nothing changed).
    /// - Throws: ``StratusError`` when the server cannot be reached (pending changes stay queued).
    @discardableResult
    public func sync() async throws -> SyncChanges {
        try await sync(scope: .delta)
    }

    /// ``sync()`` with a fetch of the given scope.
    func sync(scope: FetchScope) async throws -> SyncChanges {
        try ensureOpen("sync()")
        guard machine.beginWork() == .run else { return SyncChanges() }
        publish()
        do {
            let changes: SyncChanges
            do {
                changes = try await syncRounds(scope: scope)
            } catch let error as StratusError where error.code == .zoneNotFound && configuration.databaseScope == .private {
                // The zone the bookkeeping believed in is gone: forget it and recover in this sync.
                noteContradiction(error)
                changes = try await syncRounds(scope: scope)
            }
            machine.endWork(pending: try bookkeeping.outboxCount(), error: nil)
            publish()
            return changes
        } catch {
            noteContradiction(error)
            if !(error is SyncError), !(error is CancellationError) { scheduleReconnect() }
            machine.endWork(pending: (try? bookkeeping.outboxCount()) ?? machine.status.pendingCount, error: "\(error)")
            publish()
            throw error
        }
    }

    /// Makes the zone if needed, recovers if due, then drains and fetches: a drain that found a
    /// record gone waits for a fetch (another device's deletion wins, or a recovery re-creates it),
    /// and a recovery queues what the server lost, so it drains again after such a fetch, three
    /// rounds at most.
    private func syncRounds(scope: FetchScope) async throws -> SyncChanges {
        try await ensureZone()
        var changes = SyncChanges()
        if try bookkeeping.recoveryPending {
            changes.append(try await serializedFetch(scope: .recovery))
            try bookkeeping.setUploadUncertain(false)
        } else if try bookkeeping.uploadUncertain {
            // An upload that got no answer may have been applied: learn what became of its records
            // (another device's deletion wins over sending it again) before draining.
            changes.append(try await serializedFetch(scope: .delta))
            try bookkeeping.setUploadUncertain(false)
        }
        var scope = scope
        for round in 1...3 {
            switch await drain() {
            case .drained(_, let failure?): throw failure
            case .drained: break
            case .cancelled: throw CancellationError()
            }
            let waitsForFetch = machine.refetchRequested
            changes.append(try await serializedFetch(scope: scope))
            scope = .delta
            let pending = try bookkeeping.outboxCount()
            guard round < 3, !machine.status.isPaused, waitsForFetch || pending > 0 else { break }
        }
        return changes
    }

    /// Set while the delegate is handling a delivery: a `sync()` from inside it must not wait for itself.
    @TaskLocal static var delivering = false

    /// Runs a fetch after any fetch already under way has finished (one at a time, first come first
    /// served: the session's ``FetchTurns``).
    func serializedFetch(scope: FetchScope) async throws -> SyncChanges {
        if Self.delivering {
            logger.info("sync() called while the delegate handles a delivery; the next sync will fetch")
            return SyncChanges()
        }
        try await takeFetchTurn()
        defer { machine.fetchEnded()?.resume(returning: .turn) }
        machine.fetchStarted()
        return try await fetchChanges(scope: scope)
    }

    /// Returns once the fetch turn is this caller's; throws `CancellationError` when its task is
    /// cancelled while it waits (it never had the turn).
    private func takeFetchTurn() async throws {
        guard case .wait(let id) = machine.requestFetch() else { return }
        let wake = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if case .resume(let waiter, let wake) = machine.parkFetch(id, with: continuation) { waiter.resume(returning: wake) }
            }
        } onCancel: {
            Task { await self.cancelFetchWait(id) }
        }
        if wake == .cancelled { throw CancellationError() }
    }

    private func cancelFetchWait(_ id: FetchWaitID) {
        machine.cancelFetch(id)?.resume(returning: .cancelled)
    }

    /// Creates the app's zone unless the bookkeeping says it exists (a flag the first `zoneNotFound` clears).
    func ensureZone() async throws {
        guard !machine.zoneReady, configuration.databaseScope == .private else { return }
        if try bookkeeping.meta("zoneCreated") == nil {
            try await database.save(RecordZone(zoneID: zoneID))
            try bookkeeping.setMeta("zoneCreated", Data("1".utf8))
        }
        machine.zoneConfirmed()
    }

    /// Retries sync in the background until the server answers again (reconnection replays the outbox).
    func scheduleReconnect() {
        guard !isClosing, let interval = configuration.reconnectInterval, machine.reconnectRequested() else { return }
        logger.debug("will retry in \(interval)")
        tasks.reconnect = Task { await self.reconnect(after: interval) }
    }

    private func reconnect(after interval: Duration) async {
        var wait = interval
        while !Task.isCancelled, !machine.status.isPaused {
            do {
                try await configuration.sleep(wait)
            } catch {
                break
            }
            guard !Task.isCancelled, !machine.status.isPaused else { break }
            do {
                try await sync()
                logger.debug("reconnected")
                break
            } catch {
                wait = min(wait * 2, .seconds(300))
            }
        }
        machine.reconnectEnded()
        tasks.reconnect = nil
    }

    /// Runs one sync in the background (after an upload that got no answer, the fetch decides what
    /// becomes of the edit), unless one runs already or sync is paused.
    func scheduleFollowUpSync() {
        guard machine.followUpRequested() else { return }
        startFollowUp()
    }

    /// Starts the follow-up sync the session state machine asked for.
    func startFollowUp() {
        guard !isClosing else { return followUpEnded() }
        tasks.followUp = Task {
            do {
                try await self.sync()
            } catch {
                self.logger.info("follow-up sync failed: \(error)")
            }
            self.followUpEnded()
        }
    }

    private func followUpEnded() {
        machine.followUpEnded()
        tasks.followUp = nil
    }

    /// Returns once no upload or follow-up sync this controller started in the background is running
    /// (a drain after a save, the sync that settles a record found gone). Syncs the app runs, push
    /// and the reconnection retry are not waited for.
    ///
    /// ```swift
    /// import StratusSync
    ///
    /// func saveAndSettle(_ note: some SyncableEntity, sync: SyncController) async throws {
    ///     try await note.cloud.save()
    ///     await sync.waitForIdle()      // what the save set off has finished
    /// }
    /// ```
    public func waitForIdle() async {
        while let task = tasks.drain ?? tasks.followUp {
            await task.value
        }
    }

    /// Acts on an error that contradicts what the device believed about the server: after
    /// `zoneNotFound` (the zone was deleted, or this is a new server) the zone-created flag goes and
    /// a recovery is recorded; so after a refused change token. The next sync makes the zone again
    /// and re-queues whatever the server lost (Documentation/0009, decision 26).
    func noteContradiction(_ error: any Error) {
        guard let error = error as? StratusError else { return }
        let contradiction: Session.Contradiction
        switch error.code {
        case .zoneNotFound where configuration.databaseScope == .private: contradiction = .zoneNotFound
        case .changeTokenExpired: contradiction = .tokenRefused
        default: return
        }
        machine.contradicted(contradiction)
        do {
            try bookkeeping.beginRecovery()
            logger.info("the server no longer has this device's zone or token (\(error.code)); the next sync recovers")
        } catch {
            logger.error("could not record the lost zone: \(error)")
        }
    }

    /// Writes the clock skew to the bookkeeping when it moved noticeably (a relaunch keeps correcting edit times).
    func storeSkew() {
        guard let skew = clock.unstored else { return }
        do {
            try bookkeeping.setClockSkew(skew)
            clock.didStore(skew)
        } catch {
            logger.error("could not store the clock skew: \(error)")
        }
    }
}

extension SyncChanges {
    /// Adds another delivery's changes.
    mutating func append(_ other: SyncChanges) {
        inserted += other.inserted
        updated += other.updated
        deleted += other.deleted
    }
}
