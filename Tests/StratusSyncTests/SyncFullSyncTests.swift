import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// `syncEntities(specific:forced:)`: adopting sync with existing data, and forced rechecks.
@Suite struct SyncFullSyncTests {
    /// Entities that existed before sync was adopted are uploaded by a full sync; the rest is left alone.
    @Test func fullSyncUploadsWhatTheServerNeverSaw() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let folder = make(Folder.self, ["name": "Existing"])
            let note = make(Note.self, ["title": "Existing note"])
            note["folder"] = folder
            let tag = make(Tag.self, ["name": "not yet"])
            a.store.insert(folder, note, tag)

            try await a.sync.syncEntities(specific: [Note.self])
            #expect(note.syncID != nil && folder.syncID != nil && tag.syncID == nil)
            try await b.sync.sync()
            #expect(b.store.find(Note.self, note.syncID)?.folder?.name == "Existing")
            #expect(b.store.all(Tag.self).isEmpty)

            try await a.sync.syncEntities()
            try await b.sync.sync()
            #expect(b.store.find(Tag.self, tag.syncID)?.name == "not yet")
            #expect(await a.sync.status.isCaughtUp)
        }
    }

    /// Forced: local edits never saved are uploaded, every record is re-applied, and records the
    /// server no longer has are reported deleted.
    @Test func forcedSyncRechecksEverything() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let kept = make(Tag.self, ["name": "kept"])
            let doomed = make(Tag.self, ["name": "doomed"])
            a.store.insert(kept, doomed)
            try await a.cloud(kept).save()
            try await a.cloud(doomed).save()
            try await b.sync.sync()
            let bKept = try #require(b.store.find(Tag.self, kept.syncID))
            bKept["name"] = "kept, edited without save"

            let other = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: world.server.http.url(""),
                authentication: .none, transport: SyncWorld.sharedTransport)
            try await other.privateCloudDatabase.deleteRecord(
                withID: RecordID(recordName: try #require(doomed.syncID), zoneID: ZoneID(zoneName: "StratusSync")))

            let changes = try await b.sync.syncEntities(forced: true)
            #expect(changes.deleted.map(\.syncID) == [doomed.syncID].compactMap { $0 })
            #expect(changes.updated.map(\.record.recordID.recordName) == [kept.syncID].compactMap { $0 })
            #expect(b.store.all(Tag.self).map(\.name) == ["kept, edited without save"])
            try await a.sync.sync()
            #expect(kept.name == "kept, edited without save")
            #expect(a.store.all(Tag.self).count == 1)
        }
    }

    /// A device that lost its connection retries by itself and replays the outbox once the server answers.
    @Test func reconnectionReplaysTheOutbox() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a", reconnect: .milliseconds(20))
            let b = try world.device("b")
            try await a.sync.sync()
            a.transport.isOffline = true
            let tag = make(Tag.self, ["name": "while offline"])
            a.store.insert(tag)
            #expect(try await a.cloud(tag).save() == nil)
            #expect(await a.sync.status.pendingCount == 1)
            a.transport.isOffline = false
            let deadline = ContinuousClock.now + .seconds(20)
            while await a.sync.status.pendingCount > 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(await a.sync.status.pendingCount == 0)
            try await b.sync.sync()
            #expect(b.store.find(Tag.self, tag.syncID)?.name == "while offline")
            try await a.sync.close()
        }
    }

    /// A device that never reached the server (no zone yet) queues its saves instead of failing.
    @Test func offlineFromTheFirstLaunch() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            a.transport.isOffline = true
            let tag = make(Tag.self, ["name": "first launch"])
            a.store.insert(tag)
            #expect(try await a.cloud(tag).save() == nil)
            #expect(await a.sync.status.pendingCount == 1)
            a.transport.isOffline = false
            try await a.sync.sync()
            try await b.sync.sync()
            #expect(b.store.find(Tag.self, tag.syncID)?.name == "first launch")
        }
    }
}
