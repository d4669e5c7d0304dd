import Foundation
import StratusClient
@testable import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// The promised order (Documentation/0009, decision 41): a `save()` answers with an outcome only
/// after the delegate has heard of it — a deletion on another device that won over the edit
/// included, which a fetch reports after its commit while the save may still be waiting.
@Suite struct SyncReportOrderTests {
    typealias Machine = SyncSessionStateMachine<String, String>

    // MARK: The machine

    /// The drain cannot settle an entry a fetch dropped, and its end does not wake the entry's
    /// caller: the report does, with no record.
    @Test func aCallerOfAnEntryAFetchDroppedIsWokenByTheReportNotByTheDrainsEnd() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 5))
        #expect(machine.requestDrain() == .start)
        SyncSessionStateMachineTests.park(&machine, save, "save")
        #expect(machine.drainStarted() == .run)
        machine.uploadStarted(through: 5)
        machine.fetchDropped([5])
        machine.entrySettled(5, .saved(SyncSessionStateMachineTests.record("n")))  // the upload's late answer
        machine.uploadEnded()
        #expect(SyncSessionStateMachineTests.woken(machine.drainFinished(failure: nil, pending: 0)).isEmpty)
        #expect(machine.drainWaiting == 1)
        let woken = machine.dropsReported([5]).map { "\($0.0): \(SyncSessionStateMachineTests.describe($0.1))" }
        #expect(woken == ["save: saved"])
        #expect(machine.drainWaiting == 0)
    }

    /// A caller that parks while its entry's report is under way, with no drain running, waits for
    /// the report instead of being handed back at once as "still queued".
    @Test func aCallerParkingWhileItsEntryIsReportedWaitsForTheReport() {
        var machine = Machine()
        let save = machine.registerDrainWaiter(.change(seq: 7))
        machine.fetchDropped([7])
        SyncSessionStateMachineTests.park(&machine, save, "save")
        #expect(machine.dropsReported([8]).isEmpty)  // another entry's report
        #expect(machine.dropsReported([7]).map(\.0) == ["save"])
    }

    /// Reports wake only the callers of the dropped entries, in the order they registered; a caller
    /// cancelled meanwhile was woken by its cancellation, and entries nobody waits for wake nobody.
    @Test func reportsWakeOnlyTheCallersOfTheDroppedEntriesInOrder() {
        var machine = Machine()
        let first = machine.registerDrainWaiter(.change(seq: 1))
        let other = machine.registerDrainWaiter(.change(seq: 2))
        let second = machine.registerDrainWaiter(.change(seq: 1))
        let cancelled = machine.registerDrainWaiter(.change(seq: 3))
        #expect(machine.requestDrain() == .start)
        for (id, label) in [(first, "first"), (other, "other"), (second, "second"), (cancelled, "cancelled")] {
            SyncSessionStateMachineTests.park(&machine, id, label)
        }
        machine.fetchDropped([1, 3, 4])
        #expect(machine.cancelDrainWaiter(cancelled) == "cancelled")
        #expect(machine.dropsReported([4, 3, 1]).map(\.0) == ["first", "second"])
        #expect(SyncSessionStateMachineTests.woken(machine.drainFinished(failure: nil, pending: 0)) == ["other: queued"])
    }

    /// A sync joining a drain that holds an entry in flight is woken at that drain's end, with the
    /// entry settled before; a second sync joins the same drain rather than starting one.
    @Test func syncsJoiningADrainWithAnEntryInFlightWakeAtItsEndAfterTheEntrySettled() {
        var machine = Machine()
        let push = machine.registerDrainWaiter(.sync)
        #expect(machine.requestDrain() == .start)
        SyncSessionStateMachineTests.park(&machine, push, "push")
        #expect(machine.drainStarted() == .run)
        machine.uploadStarted(through: 1)
        let app = machine.registerDrainWaiter(.sync)
        #expect(machine.requestDrain() == .join)
        SyncSessionStateMachineTests.park(&machine, app, "app")
        machine.entrySettled(1, .saved(SyncSessionStateMachineTests.record("n")))
        machine.uploadEnded()
        #expect(machine.status.isSyncing)
        let end = machine.drainFinished(failure: nil, pending: 0)
        #expect(SyncSessionStateMachineTests.woken(end) == ["push: queued", "app: queued"])
        #expect(!end.startFollowUp)
    }

    // MARK: A device

    /// A's edit is uploading while A's sync fetches B's deletion of the record: the fetch drops the
    /// edit and reports the conflict after its commit, with the delegate slow to hear it. The
    /// waiting `save()` used to be answered at the drain's end, before the delegate knew; it is
    /// answered once the delegate has heard of the conflict.
    @Test func aSaveADeletionElsewhereDiscardedIsAnsweredOnlyAfterTheDelegateHeardOfIt() async throws {
        try await SyncWorld.run { world in
            let gate = PathGate()
            let a = try world.device("a", network: gate)
            let b = try world.device("b")
            let note = make(Note.self, ["title": "Shared"])
            a.store.insert(note)
            try await a.cloud(note).save()
            try await b.sync.sync()
            try await b.cloud(try #require(b.store.find(Note.self, note.syncID))).delete()

            gate.hold("/changes/zone")
            let sync = Task { try await a.sync.sync() }  // nothing to upload: it goes straight to its fetch
            #expect(await eventually { gate.isHolding("/changes/zone") })
            gate.hold("/records/modify")
            note["title"] = "edited on A"
            let save = Task { try await a.cloud(note).save() }
            let heardWhenAnswered = Mutex<Bool?>(nil)
            let watcher = Task {
                _ = await save.result
                heardWhenAnswered.withLock { $0 = a.store.conflicts.contains { $0.serverRecordDeleted } }
            }
            #expect(await eventually { gate.isHolding("/records/modify") })

            a.store.state.withLock { $0.holdsConflictReports = true }
            gate.open("/changes/zone")  // the fetch delivers B's deletion and drops A's edit
            #expect(await eventually { await a.sync.status.pendingCount == 0 })
            gate.open("/records/modify")  // the upload meets the gone record: the drain ends
            #expect(await eventually { await !a.sync.isDrainingForTests })
            let answeredEarly = await eventually(timeout: .milliseconds(300)) { heardWhenAnswered.withLock { $0 } != nil }
            #expect(!answeredEarly, "the save was answered before the delegate heard of the conflict")

            a.store.state.withLock { $0.holdsConflictReports = false }
            #expect(try await save.value == nil)
            await watcher.value
            #expect(heardWhenAnswered.withLock { $0 } == true)
            _ = try await sync.value
            await a.sync.waitForIdle()
            #expect(await a.sync.status.pendingCount == 0)
            #expect(a.store.find(Note.self, note.syncID) == nil)
            try await a.sync.close()
            try await b.sync.close()
        }
    }
}

extension SyncController {
    /// Whether a drain runs (tests).
    var isDrainingForTests: Bool { machine.isDraining }
}

/// A transport that holds the requests to paths ending in a held suffix until that suffix is
/// opened, so a test can line up a fetch and an upload.
final class PathGate: HTTPTransport {
    private struct State {
        var held: Set<String> = []
        var holding: Set<String> = []
    }

    private let state = Mutex(State())

    /// Holds every request to a path ending in `suffix` from now until ``open(_:)``.
    func hold(_ suffix: String) { state.withLock { _ = $0.held.insert(suffix) } }

    /// Lets the held requests to `suffix` (and later ones) through.
    func open(_ suffix: String) { state.withLock { _ = $0.held.remove(suffix) } }

    /// Whether a request to `suffix` is held now.
    func isHolding(_ suffix: String) -> Bool { state.withLock { $0.holding.contains(suffix) } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let path = request.url.path
        if let suffix = state.withLock({ $0.held.first { path.hasSuffix($0) } }) {
            state.withLock { _ = $0.holding.insert(suffix) }
            while state.withLock({ $0.held.contains(suffix) }) { try await Task.sleep(for: .milliseconds(5)) }
            state.withLock { _ = $0.holding.remove(suffix) }
        }
        return try await SyncWorld.sharedTransport.send(request)
    }
}
