import Foundation
import StratusClient
@testable import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// The sync life cycle around the conflict policies: what survives a relaunch, what a forced sync
/// may overwrite, what a deletion does to a waiting edit, and push after a network drop (issue 23).
@Suite struct SyncLifecycleTests {
    /// Defect 8: the clock skew measured at the last upload survives a relaunch. A's clock is an
    /// hour fast; after a relaunch its offline edit, made before B's, must lose under "later change
    /// wins" (it won, dated an hour late, when the skew was forgotten).
    @Test func clockSkewCorrectionSurvivesARelaunch() async throws {
        try await SyncWorld.run { world in
            let serverClock = world.clock
            let fast: @Sendable () -> Date = { serverClock().addingTimeInterval(3600) }
            let path = world.directory.path("a.sqlite")
            let first = try world.device("a", policy: .latestChangeWins, bookkeeping: path) { $0.now = fast }
            let b = try world.device("b", policy: .latestChangeWins)
            let note = make(Note.self, ["title": "Base"])
            first.store.insert(note)
            try await first.cloud(note).save()  // measures the skew: about an hour
            try await first.sync.close()

            let a = try world.device("a", policy: .latestChangeWins, store: first.store, bookkeeping: path) { $0.now = fast }
            a.transport.isOffline = true
            world.server.advanceClock(by: .seconds(5))
            note["title"] = "A, earlier"
            #expect(try await a.cloud(note).save() == nil)

            world.server.advanceClock(by: .seconds(5))
            try await b.sync.sync()
            let copy = try #require(b.store.find(Note.self, note.syncID))
            copy["title"] = "B, later"
            try await b.cloud(copy).save()

            a.transport.isOffline = false
            try await a.sync.sync()
            try await b.sync.sync()
            #expect(note.title == "B, later")
            #expect(copy.title == "B, later")
            try await a.sync.close()
            try await b.sync.close()
        }
    }

    /// A forced sync compares with the last-synced version like any upload: a field this device did
    /// not change is not sent, so another device's newer edit of it stands even under "client
    /// wins"; a field it did change goes through the policy (defect 1's forced sync overwrote B's edit).
    @Test func aForcedSyncNeverOverwritesANewerEditWithWhatItMerelyStillHolds() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a", policy: .clientWins)
            let b = try world.device("b", policy: .clientWins)
            let note = make(Note.self, ["title": "Base", "body": "base body"])
            a.store.insert(note)
            try await a.cloud(note).save()
            try await b.sync.sync()
            let copy = try #require(b.store.find(Note.self, note.syncID))
            world.server.advanceClock(by: .seconds(5))
            copy["body"] = "B's newer body"
            try await b.cloud(copy).save()

            note["title"] = "A's title, never saved"
            try await a.sync.syncEntities(forced: true)
            try await b.sync.sync()
            for held in [note, copy] {
                #expect(held.body == "B's newer body")
                #expect(held.title == "A's title, never saved")
            }
        }
    }

    /// A note A made and B fetched: B's copy.
    private static func sharedNote(_ world: SyncWorld) async throws -> (Device, Device, Note, Note) {
        let a = try world.device("a")
        let b = try world.device("b")
        let note = make(Note.self, ["title": "Shared"])
        a.store.insert(note)
        try await a.cloud(note).save()
        try await b.sync.sync()
        return (a, b, note, try #require(b.store.find(Note.self, note.syncID)))
    }

    /// An edit waiting in the outbox for a record another device deleted loses to the deletion, and
    /// the delegate hears it as a conflict (``SyncConflict/serverRecordDeleted``), not as a refused save.
    @Test func aDeletionWinsOverAWaitingEditAndIsReportedAsAConflict() async throws {
        try await SyncWorld.run { world in
            let (a, b, note, copy) = try await Self.sharedNote(world)
            b.transport.isOffline = true
            copy["title"] = "edited offline"
            #expect(try await b.cloud(copy).save() == nil)
            try await a.cloud(note).delete()

            b.transport.isOffline = false
            try await b.sync.sync()
            #expect(b.store.find(Note.self, note.syncID) == nil)
            let conflict = try #require(b.store.conflicts.first { $0.serverRecordDeleted })
            #expect(conflict.versions.recordName == note.syncID)
            #expect(conflict.discardedLocal["title"] == FieldValue.string("edited offline"))
            #expect(!b.store.state.withLock { $0.saves.contains { $0.1 != nil } }, "the edit is a conflict outcome, not a refused save")
            #expect(await b.sync.status.pendingCount == 0)
            #expect(await b.sync.status.isCaughtUp)
        }
    }

    /// An update found gone while the zone and token are fine (another device deleted the record
    /// and this one had not fetched yet) waits for a fetch, which applies the deletion.
    @Test func anUpdateOfADeletedRecordIsSettledByTheFetch() async throws {
        try await SyncWorld.run { world in
            let (a, b, note, copy) = try await Self.sharedNote(world)
            try await a.cloud(note).delete()
            copy["title"] = "edited online"
            try await b.cloud(copy).save()  // unknown on the server: a follow-up sync fetches the deletion
            #expect(await eventually(timeout: .seconds(10)) { b.store.find(Note.self, note.syncID) == nil })
            // The deletion's delivery and the conflict report are separate steps in no promised order.
            #expect(await eventually(timeout: .seconds(10)) { b.store.conflicts.contains { $0.serverRecordDeleted } })
            #expect(await eventually(timeout: .seconds(10)) { await b.sync.status.pendingCount == 0 })
            try await a.sync.close()
            try await b.sync.close()
        }
    }

    /// Defect 10: B's network drops long enough for the courier to need a new token; a note A saves
    /// meanwhile reaches B without a sync() call (the catch-up after the reconnection fetches it).
    @Test func pushCatchesUpAfterANetworkDrop() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let line = DroppableTransport(SyncWorld.sharedTransport)
            let b = try world.device("b", network: line)
            var courier = NotificationConfiguration.fastTests
            courier.transport = b.transport
            try await b.sync.startPush(notifications: courier)
            #expect(await eventually { await b.sync.status.lastSyncDate != nil })

            b.transport.isOffline = true
            line.cutInFlight()  // the parked poll dies with the network
            let missed = make(Note.self, ["title": "saved while B was offline"])
            a.store.insert(missed)
            try await a.cloud(missed).save()
            try await Task.sleep(for: .milliseconds(300))  // several failed polls: the courier drops its token
            b.transport.isOffline = false
            #expect(await eventually(timeout: .seconds(15)) { b.store.find(Note.self, missed.syncID) != nil })
            try await a.sync.close()
            try await b.sync.close()
        }
    }

    /// The session state machine: a gone record waits for a fetch once, then is re-created; the
    /// courier's registrations after the first ask for the subscriptions again; a missing zone is
    /// forgotten.
    @Test func stateMachineDecidesLifeCycleSteps() {
        var machine = SyncSessionStateMachine<Int, Int>()
        #expect(machine.recordGone("n") == .fetchFirst)
        #expect(machine.refetchRequested)
        #expect(machine.recordGone("n") == .fetchFirst)  // no fetch committed in between
        machine.fetchStarted()
        #expect(!machine.refetchRequested)
        machine.committed(date: Date(timeIntervalSince1970: 1))
        #expect(machine.recordGone("n") == .recreate)
        #expect(machine.recordGone("n") == .fetchFirst)

        machine.pushStarted()
        #expect(machine.courierListening() == .catchUp)
        #expect(machine.courierListening() == .resubscribeAndCatchUp)
        machine.pushStarted()
        #expect(machine.courierListening() == .catchUp)

        machine.zoneConfirmed()
        #expect(machine.zoneReady)
        machine.contradicted(.zoneNotFound)
        #expect(!machine.zoneReady)
        machine.failed("offline")
        #expect(machine.status.lastError == "offline" && !machine.status.isCaughtUp)
    }
}
