import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// After the server lost a device's zone (deleted, or a new server), sync re-uploads what the device
/// holds instead of deleting it, and the stale "zone created" flag never blocks a start (issue 23,
/// defects 5 and 6).
@Suite struct SyncRecoveryTests {
    /// Three notes synced on A and B.
    private static func threeNotes(_ world: SyncWorld) async throws -> (Device, Device, [Note]) {
        let a = try world.device("a")
        let b = try world.device("b")
        let notes = (1...3).map { make(Note.self, ["title": "n\($0)", "body": "body \($0)"]) }
        for note in notes { a.store.insert(note) }
        try await a.sync.upload(notes.map { .save($0, keys: nil) })
        try await b.sync.sync()
        #expect(b.store.all(Note.self).count == 3)
        return (a, b, notes)
    }

    /// The titles and bodies of the notes on the server.
    private static func serverNotes(_ device: Device) async throws -> [String] {
        let database = device.sync.configuration.container.privateCloudDatabase
        let changes = try await database.allRecordZoneChanges(inZoneWith: device.sync.zoneID, since: nil)
        return try changes.modifications().filter { $0.recordType == "Note" }.map { record in
            "\(record["title"] as String? ?? "-")|\(record["text"] as String? ?? "-")"
        }.sorted()
    }

    private static func held(_ device: Device) -> [String] {
        device.store.all(Note.self).map { "\($0.title ?? "-")|\($0.body ?? "-")" }.sorted()
    }

    /// The zone is deleted and made again by someone else; A edits an old note (refused as unknown
    /// before, and dropped) and runs the forced sync Documentation/0009 advises: every note is
    /// uploaded again, A's edit included, and B gets them all — nobody loses a note.
    @Test func aRecreatedZoneGetsTheDevicesDataBack() async throws {
        try await SyncWorld.run { world in
            let (a, b, notes) = try await Self.threeNotes(world)
            let database = a.sync.configuration.container.privateCloudDatabase
            _ = try await database.deleteRecordZone(withID: a.sync.zoneID)
            _ = try await database.save(RecordZone(zoneID: a.sync.zoneID))

            notes[1]["body"] = "edited after the reset"
            try await a.cloud(notes[1]).save()
            try await a.sync.syncEntities(forced: true)
            let expected = ["n1|body 1", "n2|edited after the reset", "n3|body 3"]
            #expect(Self.held(a) == expected)
            #expect(try await Self.serverNotes(a) == expected)
            #expect(!a.store.state.withLock { $0.saves.contains { $0.1 != nil } }, "no save was refused")

            try await b.sync.sync()
            #expect(Self.held(b) == expected)
            #expect(await a.sync.status.pendingCount == 0)
            #expect(await b.sync.status.pendingCount == 0)
        }
    }

    /// The zone is deleted; B notices when it uploads a new note (the zone is not found), makes the
    /// zone again and re-uploads its three old notes with the new one; A's forced sync afterwards
    /// keeps all four (it used to delete every note but the new one, on every device).
    @Test func aForcedSyncAfterTheZoneCameBackDeletesNothing() async throws {
        try await SyncWorld.run { world in
            let (a, b, _) = try await Self.threeNotes(world)
            _ = try await b.sync.configuration.container.privateCloudDatabase.deleteRecordZone(withID: b.sync.zoneID)
            let fourth = make(Note.self, ["title": "n4", "body": "after the reset"])
            b.store.insert(fourth)
            _ = try? await b.cloud(fourth).save()
            try await b.sync.sync()
            let expected = ["n1|body 1", "n2|body 2", "n3|body 3", "n4|after the reset"]
            #expect(try await Self.serverNotes(b) == expected)

            try await a.sync.syncEntities(forced: true)
            #expect(Self.held(a) == expected)
            try await b.sync.sync()
            #expect(Self.held(b) == expected)
            #expect(try await Self.serverNotes(a) == expected)
        }
    }

    /// A device that made its zone, then finds it gone, starts push anyway: the stale flag is cleared
    /// by the `zoneNotFound` and the zone made again. Against a new server (no zone, no
    /// subscription) `startPush` used to fail forever; with the zone deleted under an existing
    /// subscription, the catch-up sync failed and left the zone missing.
    @Test(arguments: [false, true]) func startingPushAfterAServerResetMakesTheZoneAgain(newServer: Bool) async throws {
        try await SyncWorld.run { world in
            let path = world.directory.path("a.sqlite")
            let a = try world.device("a", bookkeeping: path)
            try await a.sync.startPush(notifications: .fastTests, listeningTimeout: .seconds(5))
            try await a.sync.close()
            let database = a.sync.configuration.container.privateCloudDatabase
            if newServer { _ = try await database.deleteSubscription(withID: a.sync.pushSubscriptionID) }
            _ = try await database.deleteRecordZone(withID: a.sync.zoneID)

            let again = try world.device("a", store: a.store, bookkeeping: path)
            try await again.sync.startPush(notifications: .fastTests, listeningTimeout: .seconds(5))
            #expect(await again.sync.isPushing)
            let zoneBack = await eventually(timeout: .seconds(10)) {
                (try? await database.recordZone(for: again.sync.zoneID)) != nil
            }
            #expect(zoneBack)
            #expect(await eventually(timeout: .seconds(10)) { await again.sync.status.isCaughtUp })
            let subscriptions = try await database.allSubscriptions()
            #expect(subscriptions.map(\.subscriptionID).contains(again.sync.pushSubscriptionID))
            try await again.sync.close()
        }
    }
}
