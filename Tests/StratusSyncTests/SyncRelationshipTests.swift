import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Relationships at scale and out of order.
@Suite struct SyncRelationshipTests {
    /// 1,000 related objects (folders owning attachments, notes with a folder and tags) reach a fresh
    /// device with every relationship intact; queued while paused, they upload in batches.
    @Test func thousandRelatedObjectsArriveIntact() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let folders = (0..<50).map { make(Folder.self, ["name": "folder \($0)"]) }
            for (index, folder) in folders.enumerated() {
                folder["attachments"] =
                    [make(Attachment.self, ["fileName": "\(index)-1"]), make(Attachment.self, ["fileName": "\(index)-2"])]
                    as [any SyncableEntity]
            }
            let tags = (0..<40).map { make(Tag.self, ["name": "tag \($0)"]) }
            let notes = (0..<810).map { index in
                let note = make(Note.self, ["title": "note \(index)", "rank": index])
                note["folder"] = folders[index % folders.count]
                note["tags"] = [tags[index % tags.count], tags[(index * 7 + 1) % tags.count]] as [any SyncableEntity]
                return note
            }
            try await a.sync.sync()
            await a.sync.pause()
            for note in notes {
                a.store.insert(note)
                try await a.cloud(note).save()
            }
            #expect(await a.sync.status.pendingCount == 1_000)
            try await a.sync.resume()
            #expect(await a.sync.status.pendingCount == 0)

            let changes = try await b.sync.sync()
            #expect(changes.inserted.count == 1_000)
            #expect(b.store.all(Note.self).count == 810 && b.store.all(Folder.self).count == 50)
            #expect(b.store.all(Attachment.self).count == 100 && b.store.all(Tag.self).count == 40)
            var intact = 0
            for note in notes {
                guard let copy = b.store.find(Note.self, note.syncID) else { continue }
                if copy.title == note.title, copy.folder?.syncID == note.folder?.syncID, copy.folder?.attachments.count == 2,
                    copy.tags.map(\.syncID) == note.tags.map(\.syncID)
                {
                    intact += 1
                }
            }
            #expect(intact == 810)
        }
    }

    /// A record whose target has not arrived gets the placeholder, then the real target on a second pass.
    @Test func danglingReferenceIsRelinkedWhenTheTargetArrives() async throws {
        try await SyncWorld.run { world in
            let b = try world.device("b")
            let inbox = make(Folder.self, ["name": "Inbox"])
            b.store.state.withLock { $0.placeholderFolder = inbox }
            try await b.sync.sync()
            let other = Container(
                identifier: TestCloudKitServer.container, environment: .development, serverURL: world.server.http.url(""),
                authentication: .none, transport: SyncWorld.sharedTransport)
            let zone = ZoneID(zoneName: "StratusSync")
            let database = other.privateCloudDatabase
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "note-1", zoneID: zone))
            note["title"] = "early"
            note["folder"] = Reference(RecordID(recordName: "folder-1", zoneID: zone))
            try await database.save(note)

            try await b.sync.sync()
            let copy = try #require(b.store.find(Note.self, "note-1"))
            #expect(copy.folder === inbox)

            var folder = Record(recordType: "Folder", recordID: RecordID(recordName: "folder-1", zoneID: zone))
            folder["name"] = "Late"
            try await database.save(folder)
            let changes = try await b.sync.sync()
            #expect(copy.folder?.name == "Late")
            #expect(changes.updated.map(\.record.recordID.recordName) == ["note-1"])

            // The placeholder is never uploaded: saving a note that shows it clears the reference.
            for placeholder in [inbox, Folder.unfiled] {
                copy["folder"] = placeholder
                copy["title"] = "edited"
                let saved = try #require(try await b.cloud(copy).save())
                #expect(saved["folder"] as FieldValue? == nil)
                #expect(placeholder.syncID == nil)
                copy["title"] = "edited again"
                _ = try await b.cloud(copy).save()
            }
        }
    }
}
