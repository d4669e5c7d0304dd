import Foundation
import StratusClient
import StratusWire
import Testing

@testable import StratusSync

/// The session state machine driven directly, with labels for continuations: the fetch queue, the
/// drain and its waiting callers, pause, the follow-up sync and the reconnection retry — the
/// awkward interleavings included (a save arriving mid-drain, a fetch requested during an upload,
/// pause during a drain, a failure that leaves entries queued).
@Suite struct SyncSessionStateMachineTests {
    typealias Machine = SyncSessionStateMachine<String, String>

    struct Offline: Error, CustomStringConvertible {
        var description: String { "offline" }
    }

    /// A wake as text: `cancelled`, or `outcome/failure` (`queued` when the entry is still queued).
    static func describe(_ wake: DrainWake) -> String {
        switch wake {
        case .cancelled:
            return "cancelled"
        case .drained(let outcome, let failure):
            let what: String =
                switch outcome {
                case .saved(let record?): "saved \(record.recordID.recordName)"
                case .saved(nil): "saved"
                case .refused(let error): "refused \(error.code)"
                case nil: "queued"
                }
            return failure.map { "\(what)/\($0)" } ?? what
        }
    }

    static func woken(_ end: Machine.DrainEnd) -> [String] {
        end.resume.map { "\($0.0): \(describe($0.1))" }
    }

    static func record(_ name: String) -> StratusClient.Record {
        StratusClient.Record(recordType: "Note", recordID: RecordID(recordName: name))
    }

    /// Parks `waiter` as the registered caller `id`; fails when it is handed back instead.
    static func park(_ machine: inout Machine, _ id: DrainWaitID, _ waiter: String) {
        guard case .parked = machine.parkDrainWaiter(id, with: waiter) else {
            Issue.record("\(waiter) was not parked")
            return
        }
    }

    // MARK: Fetch queue

    @Test func fetchesTakeTurnsFirstComeFirstServed() throws {
        var machine = Machine()
        #expect(machine.requestFetch() == .run)
        #expect(machine.isFetching)
        var ids: [FetchWaitID] = []
        for label in ["b", "c", "d"] {
            guard case .wait(let id) = machine.requestFetch() else { throw Failure("\(label) did not wait") }
            guard case .parked = machine.parkFetch(id, with: label) else { throw Failure("\(label) not parked") }
            ids.append(id)
        }
        #expect(machine.fetchesWaiting == 3)
        #expect(machine.fetchEnded() == "b")
        #expect(machine.isFetching)  // the turn passed straight on: a new request waits behind c and d
        guard case .wait = machine.requestFetch() else { throw Failure("a new fetch overtook the queue") }
        #expect(machine.fetchEnded() == "c")
        #expect(machine.fetchEnded() == "d")
    }

    @Test func theLastFetchEndingFreesTheTurn() {
        var machine = Machine()
        #expect(machine.requestFetch() == .run)
        #expect(machine.fetchEnded() == nil)
        #expect(!machine.isFetching)
        #expect(machine.requestFetch() == .run)
    }

    @Test func aCancelledFetchLeavesTheQueueAndIsWokenAtOnce() throws {
        var machine = Machine()
        _ = machine.requestFetch()
        guard case .wait(let b) = machine.requestFetch(), case .wait(let c) = machine.requestFetch() else { throw Failure("no wait") }
        _ = machine.parkFetch(b, with: "b")
        _ = machine.parkFetch(c, with: "c")
        #expect(machine.cancelFetch(b) == "b")
        #expect(machine.cancelFetch(b) == nil)  // once
        #expect(machine.fetchEnded() == "c")
    }

    @Test func aFetchCancelledBeforeItParksIsWokenCancelledWhenItDoes() throws {
        var machine = Machine()
        _ = machine.requestFetch()
        guard case .wait(let b) = machine.requestFetch() else { throw Failure("no wait") }
        #expect(machine.cancelFetch(b) == nil)
        guard case .resume("b", .cancelled) = machine.parkFetch(b, with: "b") else { throw Failure("not woken cancelled") }
        #expect(machine.fetchEnded() == nil)
        #expect(!machine.isFetching)
    }

    @Test func aTurnHandedToAFetchNotParkedYetWaitsForItAndSurvivesCancellation() throws {
        var machine = Machine()
        _ = machine.requestFetch()
        guard case .wait(let b) = machine.requestFetch() else { throw Failure("no wait") }
        #expect(machine.fetchEnded() == nil)  // b has not parked: the turn is kept for it
        #expect(machine.isFetching)
        #expect(machine.cancelFetch(b) == nil)  // too late: the turn is b's, b fetches and ends it
        guard case .resume("b", .turn) = machine.parkFetch(b, with: "b") else { throw Failure("b did not get its turn") }
        #expect(machine.fetchEnded() == nil)
        #expect(!machine.isFetching)
    }

    // MARK: Drain

    @Test func aSaveStartsADrainAndGetsItsEntrysOutcomeWhenTheDrainEnds() {
        var machine = Machine()
        machine.outboxChanged(pending: 1)
        let save = machine.registerDrainWaiter(.change(seq: 1))
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, save, "save")
        #expect(machine.drainStarted() == .run)
        #expect(machine.status.isSyncing)
        #expect(machine.mayUploadNext)
        machine.uploadStarted(through: 1)
        #expect(machine.inFlight == 1)
        machine.entrySettled(1, .saved(Self.record("n1")))
        machine.uploadEnded()
        #expect(machine.status.pendingCount == 0)
        let end = machine.drainFinished(failure: nil, pending: 0)
        #expect(Self.woken(end) == ["save: saved n1"])
        #expect(!end.startFollowUp)
        #expect(!machine.isDraining && machine.inFlight == nil && machine.drainWaiting == 0 && !machine.status.isSyncing)
    }

    @Test func aSaveArrivingMidDrainJoinsItAndIsAnsweredWithItsOwnOutcome() {
        var machine = Machine()
        let first = machine.registerDrainWaiter(.change(seq: 1))
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, first, "first")
        _ = machine.drainStarted()
        machine.uploadStarted(through: 1)
        // A second save while entry 1 is in flight: queued as entry 2 (it cannot fold into 1), joins.
        let second = machine.registerDrainWaiter(.change(seq: 2))
        #expect(machine.requestDrain() == .join)
        Self.park(&machine, second, "second")
        machine.entrySettled(1, .saved(Self.record("a")))
        machine.uploadEnded()
        #expect(machine.mayUploadNext)
        machine.uploadStarted(through: 2)
        machine.entrySettled(2, .refused(SyncError(.rejected, "no")))
        machine.uploadEnded()
        let end = machine.drainFinished(failure: nil, pending: 0)
        #expect(Self.woken(end) == ["first: saved a", "second: refused rejected"])
    }

    @Test func savesFoldedIntoOneEntryEachGetItsOutcome() {
        var machine = Machine()
        let a = machine.registerDrainWaiter(.change(seq: 7))
        _ = machine.requestDrain()
        Self.park(&machine, a, "a")
        let b = machine.registerDrainWaiter(.change(seq: 7))  // a second save of the record folded into entry 7
        _ = machine.requestDrain()
        Self.park(&machine, b, "b")
        _ = machine.drainStarted()
        machine.entrySettled(7, .saved(Self.record("n")))
        machine.entrySettled(7, .saved(nil))  // an entry settles once: the first outcome stands
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["a: saved n", "b: saved n"])
    }

    @Test func anOutcomeIsKeptForACallerThatHasNotParkedYet() {
        var machine = Machine()
        let running = machine.registerDrainWaiter(.sync)
        _ = machine.requestDrain()
        Self.park(&machine, running, "sync")
        _ = machine.drainStarted()
        // A save registers and, before it asks for the drain (it waits for the zone), the running
        // drain uploads its entry and ends: the save is not woken, its outcome is kept.
        let save = machine.registerDrainWaiter(.change(seq: 3))
        machine.entrySettled(3, .saved(Self.record("r")))
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["sync: queued"])
        #expect(machine.drainWaiting == 1)
        // Then it asks: a new drain starts, and its end answers with the kept outcome.
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["save: saved r"])
    }

    @Test func aCallerThatWillNotWaitWithdrawsWithWhatItsEntryGot() {
        var machine = Machine()
        let paused = machine.registerDrainWaiter(.change(seq: 1))
        #expect(machine.withdrawDrainWaiter(paused) == nil)
        let settled = machine.registerDrainWaiter(.change(seq: 2))
        machine.entrySettled(2, .saved(nil))
        guard case .saved(nil)? = machine.withdrawDrainWaiter(settled) else {
            Issue.record("the outcome was lost")
            return
        }
        #expect(machine.drainWaiting == 0)
    }

    @Test func pauseDuringADrainStopsItAndTheWaitingSaveHearsItIsStillQueued() {
        var machine = Machine()
        machine.outboxChanged(pending: 2)
        let save = machine.registerDrainWaiter(.change(seq: 2))
        _ = machine.requestDrain()
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        machine.uploadStarted(through: 1)
        machine.pause()
        machine.entrySettled(1, .saved(nil))  // the request under way finishes
        machine.uploadEnded()
        #expect(!machine.mayUploadNext)
        let end = machine.drainFinished(failure: nil, pending: 1)
        #expect(Self.woken(end) == ["save: queued"])
        #expect(machine.status.isPaused && !machine.status.isSyncing && machine.status.pendingCount == 1 && !machine.status.isCaughtUp)
        // Paused, a drain started anyway does nothing, and wakes its callers.
        let late = machine.registerDrainWaiter(.change(seq: 2))
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, late, "late")
        #expect(machine.drainStarted() == .skipPaused)
        #expect(Self.woken(machine.drainSkipped()) == ["late: queued"])
        #expect(!machine.isDraining && !machine.status.isSyncing)
        // Resumed, the entry goes with the next drain.
        #expect(machine.resume() == .run)
        let again = machine.registerDrainWaiter(.change(seq: 2))
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, again, "again")
        #expect(machine.drainStarted() == .run)
        machine.entrySettled(2, .saved(Self.record("two")))
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["again: saved two"])
    }

    @Test func aFailedDrainLeavesItsEntriesQueuedReportsTheFailureAndRetriesOnce() {
        var machine = Machine()
        machine.outboxChanged(pending: 2)
        let sync = machine.registerDrainWaiter(.sync)
        let save = machine.registerDrainWaiter(.change(seq: 2))
        _ = machine.requestDrain()
        Self.park(&machine, sync, "sync")
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        machine.uploadStarted(through: 2)
        machine.uploadEnded()  // the request failed: nothing settled
        #expect(machine.reconnectRequested() == true)
        #expect(machine.reconnectRequested() == false)  // one retry at a time
        let end = machine.drainFinished(failure: Offline(), pending: 2)
        #expect(Self.woken(end) == ["sync: queued/offline", "save: queued/offline"])
        #expect(machine.status.lastError == "offline" && machine.status.pendingCount == 2 && !machine.status.isCaughtUp)
        #expect(machine.inFlight == nil)
        // The retry's drain uploads the same entries, which were never removed.
        let retry = machine.registerDrainWaiter(.sync)
        #expect(machine.requestDrain() == .start)
        Self.park(&machine, retry, "retry")
        _ = machine.drainStarted()
        machine.uploadStarted(through: 2)
        machine.entrySettled(1, .saved(nil))
        machine.entrySettled(2, .saved(nil))
        machine.uploadEnded()
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["retry: queued"])
        #expect(machine.status.lastError == nil && machine.status.pendingCount == 0)
        machine.reconnectEnded()
        #expect(machine.reconnectRequested() == true)
    }

    @Test func theRetryIsOffWhenNotConfiguredAndWhilePaused() {
        var off = Machine(reconnects: false)
        #expect(off.reconnectRequested() == false)
        var paused = Machine()
        paused.pause()
        #expect(paused.reconnectRequested() == false)
    }

    @Test func aFetchRequestedDuringAnUploadRunsAndSeesWhatIsInFlight() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 5))
        _ = machine.requestDrain()
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        machine.uploadStarted(through: 5)
        // A push-triggered sync fetches meanwhile: fetches and the drain do not wait for each other,
        // and its commit must not fold a re-queued save into the entry in flight.
        #expect(machine.requestFetch() == .run)
        machine.fetchStarted()
        #expect(machine.inFlight == 5)
        machine.fetched()
        machine.committed(date: Date(timeIntervalSince1970: 1))
        #expect(machine.fetchEnded() == nil)
        machine.entrySettled(5, .saved(nil))
        machine.uploadEnded()
        #expect(Self.woken(machine.drainFinished(failure: nil, pending: 0)) == ["save: saved"])
        // The upload moved the server past the fetch: not caught up until the next fetch commits.
        #expect(!machine.status.isCaughtUp)
        machine.committed(date: Date(timeIntervalSince1970: 2))
        #expect(machine.status.isCaughtUp)
    }

    @Test func aCancelledCallerLeavesTheDrainWhichGoesOn() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 1))
        _ = machine.requestDrain()
        Self.park(&machine, save, "save")
        #expect(machine.cancelDrainWaiter(save) == "save")
        #expect(machine.cancelDrainWaiter(save) == nil)
        #expect(machine.isDraining)
        _ = machine.drainStarted()
        machine.entrySettled(1, .saved(nil))
        #expect(machine.drainFinished(failure: nil, pending: 0).resume.isEmpty)
    }

    @Test func aCallerCancelledBeforeItParksIsWokenCancelledWhenItDoes() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 1))
        #expect(machine.cancelDrainWaiter(save) == nil)
        _ = machine.requestDrain()
        guard case .resume("save", .cancelled) = machine.parkDrainWaiter(save, with: "save") else {
            Issue.record("not woken cancelled")
            return
        }
        #expect(machine.drainWaiting == 0)
    }

    @Test func aCallerParkingWhenNoDrainRunsIsAnsweredAtOnce() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 1))
        machine.entrySettled(1, .saved(nil))
        guard case .resume("save", .drained(.saved(nil)?, nil)) = machine.parkDrainWaiter(save, with: "save") else {
            Issue.record("not answered")
            return
        }
    }

    // MARK: Follow-up syncs

    @Test func aRecordGoneInASavesDrainStartsOneFollowUpSync() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 1))
        _ = machine.requestDrain()
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        #expect(machine.recordGone("n") == .fetchFirst)
        let end = machine.drainFinished(failure: nil, pending: 1)
        #expect(Self.woken(end) == ["save: queued"])
        #expect(end.startFollowUp && machine.followUpRunning)
        #expect(machine.followUpRequested() == false)  // one at a time
        machine.fetchStarted()
        #expect(!machine.refetchRequested)
        machine.followUpEnded()
        #expect(machine.followUpRequested() == true)
    }

    @Test func aRecordGoneInASyncsDrainNeedsNoFollowUpTheSyncFetches() {
        var machine = Machine()
        let sync = machine.registerDrainWaiter(.sync)
        let save = machine.registerDrainWaiter(.change(seq: 1))
        _ = machine.requestDrain()
        Self.park(&machine, sync, "sync")
        Self.park(&machine, save, "save")
        _ = machine.drainStarted()
        _ = machine.recordGone("n")
        let end = machine.drainFinished(failure: nil, pending: 1)
        #expect(!end.startFollowUp && !machine.followUpRunning)
        #expect(machine.refetchRequested)  // the sync fetches next, and clears it
    }

    @Test func noFollowUpWhilePaused() {
        var machine = Machine()
        _ = machine.requestDrain()
        _ = machine.drainStarted()
        _ = machine.recordGone("n")
        machine.pause()
        #expect(!machine.drainFinished(failure: nil, pending: 1).startFollowUp)
        #expect(machine.followUpRequested() == false)
    }

    // MARK: Push

    @Test func aReconnectionAsksForTheSubscriptionsUntilTheyAreSaved() {
        var machine = Machine()
        machine.pushStarted()
        #expect(machine.courierListening() == .catchUp)
        #expect(machine.takeResubscribe() == false)
        #expect(machine.courierListening() == .resubscribeAndCatchUp)
        #expect(machine.takeResubscribe() == true)
        #expect(machine.takeResubscribe() == false)
        machine.resubscribeFailed()
        #expect(machine.takeResubscribe() == true)
        _ = machine.courierListening()
        machine.pushStarted()  // starting push saves them
        #expect(machine.takeResubscribe() == false)
    }
}

/// A test step that could not go on.
struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
