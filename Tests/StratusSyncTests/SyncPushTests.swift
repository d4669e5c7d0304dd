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
            #expect(b.store.deliveries.count > deliveriesBefore)
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
}
