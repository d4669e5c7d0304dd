import Foundation
import StratusClient
@testable import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// An app's `sync()` and `close()` while the session push started holds the app's change in
/// flight: neither returns before that change's outcome — a conflict's result included — is in
/// the store (the two-process notes test once printed the stale body after a `sync()`).
@Suite struct SyncSessionInFlightTests {
    /// A's body edited offline, B's edited an hour later: A relaunched with its uploads held and
    /// push started, so push's catch-up sync holds A's conflicting entry in flight.
    private static func conflictInFlight(
        _ world: SyncWorld
    ) async throws -> (a: Device, b: Device, note: Note, held: HeldModifyTransport, before: Date?) {
        let path = world.directory.path("a.sqlite")
        let first = try world.device("a", policy: .latestChangeWins, bookkeeping: path)
        let b = try world.device("b", policy: .latestChangeWins)
        let note = make(Note.self, ["title": "Groceries", "body": "first draft"])
        first.store.insert(note)
        try await first.cloud(note).save()
        try await first.sync.sync()
        try await b.sync.sync()
        first.transport.isOffline = true
        note["body"] = "written offline on A"
        #expect(try await first.cloud(note).save() == nil)
        let before = await first.sync.status.lastSyncDate
        try await first.sync.close()

        world.server.advanceClock(by: .seconds(3600))
        let copy = try #require(b.store.find(Note.self, note.syncID))
        copy["body"] = "written later on B"
        try await b.cloud(copy).save()

        let held = HeldModifyTransport()
        let a = try world.device("a", policy: .latestChangeWins, store: first.store, bookkeeping: path, network: held)
        #expect(await a.sync.status.pendingCount == 1)
        try await a.sync.startPush(notifications: .fastTests)
        // Push's catch-up sync drains: A's edit is in flight, its answer held.
        #expect(await eventually { held.isHolding })
        #expect(await a.sync.inFlightForTests != nil)
        return (a, b, note, held, before)
    }

    /// The app's `sync()` joins the drain push started; it returns after the conflict's result (B's
    /// later body) is in A's store, the delegate heard of the conflict, and a fetch after the drain
    /// committed — not with the status still saying "syncing" for work this sync waited for.
    @Test func aSyncJoiningPushsDrainReturnsAfterTheConflictsResultIsInTheStore() async throws {
        try await SyncWorld.run { world in
            let (a, b, note, held, before) = try await Self.conflictInFlight(world)
            let sync = Task { try await a.sync.sync() }
            // Both push's sync and the app's wait for the one drain.
            #expect(await eventually { await a.sync.drainWaitingForTests == 2 })
            #expect(note.body == "written offline on A")
            held.open()
            _ = try await sync.value

            #expect(note.body == "written later on B")
            let conflict = try #require(a.store.conflicts.first)
            #expect(conflict.discardedLocal["text"] == FieldValue.string("written offline on A"))
            let status = await a.sync.status
            #expect(status.pendingCount == 0)
            #expect(status.lastError == nil)
            let committed = try #require(status.lastSyncDate)
            #expect(committed > before ?? .distantPast, "the fetch after the drain committed")
            #expect(try await a.sync.writeBackNamesForTests().isEmpty)

            try await a.sync.close()
            #expect(await !a.sync.status.isSyncing)
            #expect(note.body == "written later on B")
            try await b.sync.sync()
            #expect(b.store.find(Note.self, note.syncID)?.body == "written later on B")
            try await b.sync.close()
        }
    }

    /// `close()` while push's drain holds A's entry: it waits for that drain, so the conflict's
    /// result reaches the store and its write-back marker is cleared before the process may end; a
    /// relaunch has nothing pending and nothing to write back.
    @Test func closeWhilePushsDrainHoldsAConflictLosesNothing() async throws {
        try await SyncWorld.run { world in
            let (a, b, note, held, _) = try await Self.conflictInFlight(world)
            let closing = Task { try await a.sync.close() }
            // close() has stopped push (its sync woke cancelled) and waits for the drain alone.
            #expect(await eventually { await !a.sync.isPushing })
            #expect(await eventually { await a.sync.drainWaitingForTests == 0 })
            held.open()
            try await closing.value

            #expect(note.body == "written later on B")
            #expect(a.store.conflicts.count == 1)
            #expect(await !a.sync.status.isSyncing)
            let relaunched = try world.device("a", policy: .latestChangeWins, store: a.store, bookkeeping: a.bookkeepingPath)
            #expect(await relaunched.sync.status.pendingCount == 0)
            #expect(try await relaunched.sync.writeBackNamesForTests().isEmpty)
            try await relaunched.sync.close()
            try await b.sync.close()
        }
    }
}

extension SyncController {
    /// Callers waiting for the drain now (tests).
    var drainWaitingForTests: Int { machine.drainWaiting }

    /// The last outbox entry of the request under way (tests).
    var inFlightForTests: Int64? { machine.inFlight }

    /// The records whose resolved version the store has not received yet (tests).
    func writeBackNamesForTests() throws -> [String] { try bookkeeping.writeBackNames() }
}
