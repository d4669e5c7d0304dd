import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Testing

extension NotificationConfiguration {
    /// Polls with short backoffs, so a test never waits out a production retry.
    static var fastTests: NotificationConfiguration {
        var configuration = NotificationConfiguration()
        configuration.sleep = { try await Task.sleep(for: min($0, .milliseconds(50))) }
        configuration.random = { 0.5 }
        return configuration
    }
}

/// Push: a zone subscription and the web courier trigger delta fetches.
@Suite struct SyncPushTests {
    /// Device A saves; device B, which never calls sync(), receives the changes through its delegate.
    @Test func notificationsTriggerDeltaFetches() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            try await b.sync.startPush(notifications: .fastTests)
            #expect(await b.sync.isPushing)
            // Starting again is a no-op; the subscription exists once on the server.
            try await b.sync.startPush(notifications: .fastTests)
            let subscriptions = try await b.sync.configuration.container.privateCloudDatabase.allSubscriptions()
            #expect(subscriptions.map(\.subscriptionID) == [b.sync.pushSubscriptionID])
            // Once push's catch-up sync has committed, whatever B receives comes by push.
            #expect(await eventually { await b.sync.status.lastSyncDate != nil })
            let deliveriesBefore = b.store.deliveries.count

            let folder = make(Folder.self, ["name": "Inbox"])
            let note = make(Note.self, ["title": "Pushed", "body": "hello"])
            note["folder"] = folder
            a.store.insert(folder, note)
            try await a.cloud(note).save()
            let arrived = await eventually { b.store.find(Note.self, note.syncID)?.title == "Pushed" }
            #expect(arrived)
            // The entity is in the store before the delivery's didFinishSync is: wait for that too (a full run saw 0).
            #expect(await eventually { b.store.deliveries.count > deliveriesBefore })
            #expect(b.store.find(Note.self, note.syncID)?.folder?.name == "Inbox")

            // A later edit arrives as an update of the same entity, again without a sync() on B.
            note["title"] = "Pushed twice"
            try await a.cloud(note).save(keys: ["title"])
            #expect(await eventually { b.store.find(Note.self, note.syncID)?.title == "Pushed twice" })
            #expect(b.store.all(Note.self).count == 1)

            await b.sync.stopPush()
            #expect(await !b.sync.isPushing)
            try await a.sync.close()
            try await b.sync.close()
        }
    }

    /// The public database: B subscribes to each record type and to its own DeleteQueue entries;
    /// A's create, update and delete reach B's delegate without B ever calling sync().
    @Test func publicDatabasePushDeliversCreatesUpdatesAndDeletions() async throws {
        try await SyncWorld.run { world in
            let a = try SyncPublicDatabaseTests.publicDevice(world, "a")
            let b = try SyncPublicDatabaseTests.publicDevice(world, "b")
            try await a.sync.sync()  // registers A
            try await b.sync.startPush(notifications: .fastTests)
            let subscriptions = try await b.sync.configuration.container.publicCloudDatabase.allSubscriptions()
            // One query subscription per record type, one on the DeleteQueue entries addressed to B.
            let ids = subscriptions.map(\.subscriptionID)
            #expect(
                Set(ids.filter { !$0.hasPrefix("StratusSync.StratusDeleteQueue.") }) == [
                    "StratusSync.Folder", "StratusSync.Note", "StratusSync.Tag", "StratusSync.Attachment",
                ])
            let queue = try #require(subscriptions.first { $0.subscriptionID.hasPrefix("StratusSync.StratusDeleteQueue.") })
            #expect(queue.query?.recordType == "StratusDeleteQueue" && queue.firesOn == [.create])
            #expect(ids.count == 5)
            // The catch-up sync checks B in, so A's deletions queue an entry for it.
            #expect(await eventually { await b.sync.status.lastSyncDate != nil })

            let folder = make(Folder.self, ["name": "Lobby"])
            let note = make(Note.self, ["title": "Posted", "body": "hello"])
            note["folder"] = folder
            let tag = make(Tag.self, ["name": "public"])
            a.store.insert(folder, note, tag)
            try await a.sync.upload([.save(note, keys: nil), .save(tag, keys: nil)])
            #expect(await eventually { b.store.find(Note.self, note.syncID)?.title == "Posted" })
            #expect(b.store.find(Note.self, note.syncID)?.folder?.name == "Lobby")
            #expect(await eventually { b.store.find(Tag.self, tag.syncID) != nil })

            note["title"] = "Posted twice"
            try await a.cloud(note).save(keys: ["title"])
            #expect(await eventually { b.store.find(Note.self, note.syncID)?.title == "Posted twice" })
            #expect(b.store.all(Note.self).count == 1)

            // A deletion travels as a DeleteQueue entry for B; its push makes B fetch and apply it.
            try await a.cloud(tag).delete()
            a.store.remove(tag)
            #expect(await eventually { b.store.find(Tag.self, tag.syncID) == nil })
            #expect(b.store.deliveries.contains { $0.deleted.map(\.syncID) == [tag.syncID] })
            // B applied and removed its entry without a sync() of its own.
            #expect(await eventually { (try? await SyncPublicDatabaseTests.queuedFor(a))?.isEmpty == true })

            // The race the DeleteQueue subscription covers: the record's own push makes B fetch before
            // the entry exists. Here the note goes with no entry (B's fetch finds nothing to delete),
            // and an entry written later (as a slow deleting device would) pushes B again by itself.
            let database = a.sync.configuration.container.publicCloudDatabase
            let noteName = try #require(note.syncID)
            _ = try await database.modifyRecords(saving: [], deleting: [RecordID(recordName: noteName, zoneID: .defaultZone)], atomically: false)
            try await Task.sleep(for: .milliseconds(200))
            #expect(b.store.find(Note.self, noteName) != nil)
            var entry = Record(recordType: "StratusDeleteQueue", recordID: RecordID(recordName: "late-entry", zoneID: .defaultZone))
            entry["dq_deviceID"] = "device-b"
            entry["dq_recordID"] = noteName
            entry["dq_recordType"] = "Note"
            _ = try await database.modifyRecords(saving: [entry], deleting: [], atomically: false)
            #expect(await eventually { b.store.find(Note.self, noteName) == nil })

            try await a.sync.close()
            try await b.sync.close()
        }
    }
}
